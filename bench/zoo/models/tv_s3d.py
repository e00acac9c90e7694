"""torchvision `s3d` (weights=None): S3D video classifier (Xie et al. 2018, "Rethinking Spatiotemporal Feature
Learning"): Inception-style network whose 3D convolutions are separable (1 x k x k spatial then k x 1 x 1
temporal), published builder unchanged, 8.3M parameters.

Input: clips (batch, 3, 16, 224, 224). Not shrunk spatially: the final AvgPool3d has a fixed (2, 7, 7) kernel
after a 32x spatial / 8x temporal downsampling, so the frames must be about 224 x 224 (112 x 112 and 192 x 192 fail)
and clips at least 13 frames long. Output: Kinetics-400 logits (batch, 400).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
num_frames = 16
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.video.s3d(weights=None)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, num_frames, image_size, image_size)]


def get_init_inputs():
    return []
