"""diffusers `AutoencoderKL`: the Stable Diffusion VAE (conv encoder -> diagonal Gaussian posterior -> conv decoder).

Architecture after stabilityai/sd-vae-ft-mse `config.json`, shrunk: block_out_channels (32, 64, 128, 128) instead of
(128, 256, 512, 512), layers_per_block 1 instead of 2, 64 x 64 images instead of 256 x 256. Input: images
(batch, 3, 64, 64). Output: the reconstruction `.sample` (batch, 3, 64, 64); the default forward decodes the
posterior mode (sample_posterior=False), so it is deterministic.
"""
import torch
from torch import nn
from diffusers import AutoencoderKL

batch_size = 2
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderKL(**config)

    def forward(self, x):
        return self.model(x).sample


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # Kept from sd-vae-ft-mse: 4 levels (3 downsamples, 8x), latent_channels 4, norm_num_groups 32, silu,
    # DownEncoderBlock2D / UpDecoderBlock2D, attention in the mid block.
    # Shrunk: block_out_channels (32, 64, 128, 128) (was (128, 256, 512, 512)), layers_per_block 1 (was 2).
    return [dict(
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D",) * 4,
        up_block_types=("UpDecoderBlock2D",) * 4,
        block_out_channels=(32, 64, 128, 128),
        layers_per_block=1,
        latent_channels=4,
        norm_num_groups=32,
        act_fn="silu",
        sample_size=image_size,
    )]
