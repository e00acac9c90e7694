"""diffusers `UNet2DModel`: the unconditional DDPM denoising UNet (ResNet blocks with timestep embedding,
self-attention blocks at one resolution, skip connections between the down and up paths).

Architecture after google/ddpm-cifar10-32 `config.json`, shrunk: block_out_channels (128, 256, 256, 256) ->
(32, 64, 64, 64); the 4 levels, 2 ResNet layers per block, the attention at the 16 x 16 level and the 32 x 32
input size are kept. Inputs: noisy image (batch, 3, 32, 32), timestep (batch,).
Output: predicted noise `.sample` (batch, 3, 32, 32).
"""
import torch
from torch import nn
from diffusers import UNet2DModel

batch_size = 2
image_size = 32


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UNet2DModel(**config)

    def forward(self, sample, timestep):
        return self.model(sample, timestep).sample


def get_inputs():
    sample = torch.randn(batch_size, 3, image_size, image_size)
    timestep = torch.randint(0, 1000, (batch_size,))
    return [sample, timestep]


def get_init_inputs():
    # Kept from ddpm-cifar10-32: in/out channels 3, block types (attention on the second level), layers_per_block 2,
    # silu, attention_head_dim None (one head), norm_num_groups 32, norm_eps 1e-6, positional time embedding with
    # flip_sin_to_cos False / freq_shift 1, downsample_padding 0, mid_block_scale_factor 1, no input centering.
    # Shrunk: block_out_channels (128, 256, 256, 256) -> (32, 64, 64, 64).
    return [dict(
        sample_size=image_size,
        in_channels=3,
        out_channels=3,
        down_block_types=("DownBlock2D", "AttnDownBlock2D", "DownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "UpBlock2D", "AttnUpBlock2D", "UpBlock2D"),
        block_out_channels=(32, 64, 64, 64),
        layers_per_block=2,
        act_fn="silu",
        attention_head_dim=None,
        norm_num_groups=32,
        norm_eps=1e-6,
        time_embedding_type="positional",
        flip_sin_to_cos=False,
        freq_shift=1,
        downsample_padding=0,
        mid_block_scale_factor=1,
        center_input_sample=False,
    )]
