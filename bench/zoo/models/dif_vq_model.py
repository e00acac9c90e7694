"""diffusers `VQModel`: VQ-GAN / MoVQ autoencoder (ResNet + attention encoder, vector quantizer with a learned
codebook, decoder whose GroupNorms are conditioned on the quantized latents, "spatial" norm).

Architecture after the Kandinsky 2.2 MoVQ (kandinsky-community/kandinsky-2-2-decoder `movq/config.json`), shrunk:
block_out_channels (128, 256, 256, 512) -> (32, 32, 64, 64), codebook 16384 -> 256 entries; the 4 levels
(3 downsamplings: 8x), 2 layers per block, attention at the lowest level, 4 latent channels / embed dim 4
and the spatial norm are kept. Input: image (batch, 3, 64, 64) (latent 8 x 8).
Output: the reconstruction `.sample` (batch, 3, 64, 64) of the full encode -> quantize -> decode pass.
"""
import torch
from torch import nn
from diffusers import VQModel

batch_size = 2
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VQModel(**config)

    def forward(self, sample):
        return self.model(sample).sample


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size) * 2 - 1]  # images scaled to [-1, 1]


def get_init_inputs():
    # Kept from Kandinsky 2.2 MoVQ: in/out channels 3, block types, layers_per_block 2, silu, latent_channels 4,
    # vq_embed_dim 4, norm_num_groups 32, norm_type "spatial". Shrunk: block_out_channels, num_vq_embeddings.
    return [dict(
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D", "AttnDownEncoderBlock2D"),
        up_block_types=("AttnUpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D"),
        block_out_channels=(32, 32, 64, 64),  # published (128, 256, 256, 512)
        layers_per_block=2,
        act_fn="silu",
        latent_channels=4,
        num_vq_embeddings=256,  # published 16384
        vq_embed_dim=4,
        norm_num_groups=32,
        norm_type="spatial",
        sample_size=image_size,
    )]
