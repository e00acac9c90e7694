"""diffusers `UNet2DConditionModel`: the Stable Diffusion denoising UNet (ResNet blocks, cross-attention to text, timestep embedding).

Architecture after runwayml/stable-diffusion-v1-5 `unet/config.json`, shrunk: 2 down/up levels instead of 4
(block_out_channels (32, 64) instead of (320, 640, 1280, 1280)), cross_attention_dim 64 instead of 768,
16 x 16 latents instead of 64 x 64. Inputs: noisy latents (batch, 4, 16, 16), timestep (batch,),
text-encoder hidden states (batch, 8, 64). Output: predicted noise `.sample` (batch, 4, 16, 16).
"""
import torch
from torch import nn
from diffusers import UNet2DConditionModel

batch_size = 2
latent_size = 16
text_len = 8
cross_attention_dim = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UNet2DConditionModel(**config)

    def forward(self, sample, timestep, encoder_hidden_states):
        return self.model(sample, timestep, encoder_hidden_states).sample


def get_inputs():
    sample = torch.randn(batch_size, 4, latent_size, latent_size)
    timestep = torch.randint(0, 1000, (batch_size,))
    encoder_hidden_states = torch.randn(batch_size, text_len, cross_attention_dim)
    return [sample, timestep, encoder_hidden_states]


def get_init_inputs():
    # Kept from SD v1.5: in/out channels 4, layers_per_block 2, attention_head_dim 8, norm_num_groups 32, silu,
    # flip_sin_to_cos, freq_shift 0, downsample_padding 1, cross-attention blocks on all but the lowest level.
    # Shrunk: 2 levels (was 4), block_out_channels (32, 64) (was (320, 640, 1280, 1280)), cross_attention_dim 64 (was 768).
    return [dict(
        sample_size=latent_size,
        in_channels=4,
        out_channels=4,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        block_out_channels=(32, 64),
        layers_per_block=2,
        attention_head_dim=8,
        cross_attention_dim=cross_attention_dim,
        norm_num_groups=32,
        act_fn="silu",
        flip_sin_to_cos=True,
        freq_shift=0,
        downsample_padding=1,
    )]
