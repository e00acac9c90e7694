"""torchvision `r2plus1d_18` (weights=None): R(2+1)D-18 video classifier (ResNet-18 with each 3D conv factorised into
a spatial 1 x 3 x 3 conv and a temporal 3 x 1 x 1 conv), published builder unchanged.

Input: clips (batch, 3, 8, 112, 112) (torchvision's Kinetics-400 clips are 16 frames of 112 x 112; 8 frames here).
Output: Kinetics-400 logits (batch, 400).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
num_frames = 8  # 16 in torchvision's Kinetics-400 recipe
image_size = 112


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.video.r2plus1d_18(weights=None)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, num_frames, image_size, image_size)]


def get_init_inputs():
    return []
