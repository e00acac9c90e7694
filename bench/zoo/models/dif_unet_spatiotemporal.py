"""diffusers `UNetSpatioTemporalConditionModel`: the Stable Video Diffusion image-to-video denoising UNet (a
Stable-Diffusion-style 2D UNet run on every frame, batch and frames flattened together; every ResNet block is a
SpatioTemporalResBlock (a 2D ResNet block per frame, then a temporal ResNet block of 3 x 1 x 1 convs across frames,
blended with a learned sigmoid(mix_factor) AlphaBlender) and every spatial transformer is a
TransformerSpatioTemporalModel (self-attention + cross-attention to the CLIP image embedding per frame, then a
temporal transformer that attends across frames at each pixel, an MLP of the sinusoidal frame index added to its
input, blended by another AlphaBlender); the timestep embedding is summed with an MLP of the sinusoidal embeddings
of the three added_time_ids (fps - 1, motion bucket id, noise augmentation strength)).

Architecture after stabilityai/stable-video-diffusion-img2vid `unet/config.json`, shrunk: 2 down/up levels instead of
4 (block_out_channels (32, 64) instead of (320, 640, 1280, 1280), cross-attention on all but the lowest level as
published, and in the mid block), layers_per_block 2 -> 1, num_attention_heads (5, 10, 20, 20) -> (2, 4) (head size
64 -> 16), cross_attention_dim 1024 (CLIP ViT-H image embedding) -> 64, addition_time_embed_dim 256 -> 32
(projection_class_embeddings_input_dim 768 -> 96 = 3 x 32), num_frames 14 -> 4, 72 x 128 latents (576 x 1024 px)
-> 16 x 16.
Inputs: sample (batch, frames, 8, 16, 16) (frames before channels: the 4 noisy latent channels concatenated with the 4
channels of the conditioning image's latent, repeated over frames, as the pipeline builds it), timestep (batch,) (the
EDM noise conditioning c_noise = 0.25 * ln(sigma) the Euler scheduler passes), encoder_hidden_states (batch, 1, 64)
(the CLIP image embedding), added_time_ids (batch, 3).
Output: `.sample` (batch, frames, 4, 16, 16).
"""
import torch
from diffusers import UNetSpatioTemporalConditionModel
from torch import nn

batch_size = 2
num_frames = 4  # published 14
latent_size = 16  # published 72 x 128
cross_attention_dim = 64  # CLIP ViT-H image-embedding width 1024


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UNetSpatioTemporalConditionModel(**config)

    def forward(self, sample, timestep, encoder_hidden_states, added_time_ids):
        return self.model(
            sample, timestep, encoder_hidden_states=encoder_hidden_states, added_time_ids=added_time_ids
        ).sample


def get_inputs():
    noisy_latents = torch.randn(batch_size, num_frames, 4, latent_size, latent_size)
    image_latents = torch.randn(batch_size, 4, latent_size, latent_size)
    sample = torch.cat([noisy_latents, image_latents.unsqueeze(1).repeat(1, num_frames, 1, 1, 1)], dim=2)
    sigma = torch.exp(torch.randn(batch_size) * 1.2 - 1.2)  # EDM's log-normal noise levels
    timestep = 0.25 * sigma.log()
    encoder_hidden_states = torch.randn(batch_size, 1, cross_attention_dim)
    fps = torch.randint(5, 31, (batch_size,))  # the pipeline's default is 7
    motion_bucket_id = torch.randint(0, 256, (batch_size,))  # the pipeline's default is 127
    noise_aug_strength = torch.rand(batch_size) * 0.1  # the pipeline's default is 0.02
    added_time_ids = torch.stack([fps - 1, motion_bucket_id, noise_aug_strength], dim=1).float()
    return [sample, timestep, encoder_hidden_states, added_time_ids]


def get_init_inputs():
    # Kept from stable-video-diffusion-img2vid: in_channels 8, out_channels 4, transformer_layers_per_block 1
    # (silu, GroupNorm(32) and eps 1e-5 are hard-coded).
    return [dict(
        sample_size=latent_size,  # published 96
        in_channels=8,
        out_channels=4,
        down_block_types=(  # published 3 x CrossAttnDownBlockSpatioTemporal + DownBlockSpatioTemporal
            "CrossAttnDownBlockSpatioTemporal",
            "DownBlockSpatioTemporal",
        ),
        up_block_types=(  # published UpBlockSpatioTemporal + 3 x CrossAttnUpBlockSpatioTemporal
            "UpBlockSpatioTemporal",
            "CrossAttnUpBlockSpatioTemporal",
        ),
        block_out_channels=(32, 64),  # published (320, 640, 1280, 1280)
        addition_time_embed_dim=32,  # published 256
        projection_class_embeddings_input_dim=3 * 32,  # published 768 = 3 x 256
        layers_per_block=1,  # published 2
        cross_attention_dim=cross_attention_dim,  # published 1024
        transformer_layers_per_block=1,
        num_attention_heads=(2, 4),  # published (5, 10, 20, 20)
        num_frames=num_frames,  # published 14
    )]
