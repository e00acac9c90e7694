"""torchvision `swin3d_t` (weights=None): Video Swin Transformer Tiny (Liu et al. 2022): 3D patch embedding
(2 x 4 x 4), shifted 3D window attention (window 8 x 7 x 7) with relative position bias, patch merging,
published builder unchanged, 28M parameters.

Shrunk: clips of 8 frames of 112 x 112 instead of the Kinetics recipe's 32 x 224 x 224 (the windows are clipped
to the smaller feature maps and padded where needed, as the builder does).
Input: clips (batch, 3, 8, 112, 112). Output: Kinetics-400 logits (batch, 400).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
num_frames = 8  # 32 in torchvision's Kinetics-400 recipe
image_size = 112  # 224 in torchvision's recipe


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.video.swin3d_t(weights=None)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, num_frames, image_size, image_size)]


def get_init_inputs():
    return []
