"""diffusers `T2IAdapter` (full_adapter): the T2I-Adapter control encoder (pixel-unshuffle by 8, then a stack of
residual conv blocks with stride-2 downsampling producing one feature map per SD UNet resolution), after
`TencentARC/t2iadapter_canny_sd15v2`, shrunk. Output: the deepest adapter feature map (2, 128, 4, 4).
"""
import torch
from torch import nn
from diffusers import T2IAdapter

batch_size = 2
image_size = 256
in_channels = 1  # canny edge map


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = T2IAdapter(**config)

    def forward(self, x):
        return self.model(x)[-1]


def get_inputs():
    return [torch.randn(batch_size, in_channels, image_size, image_size)]


def get_init_inputs():
    # Kept: in_channels 1, num_res_blocks 2, downscale_factor 8, adapter_type full_adapter.
    return [dict(
        in_channels=in_channels,
        channels=[32, 64, 128, 128],  # published [320, 640, 1280, 1280]
        num_res_blocks=2,
        downscale_factor=8,
        adapter_type="full_adapter",
    )]
