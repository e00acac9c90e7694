"""torchvision `mvit_v2_s` (weights=None): MViTv2-S video transformer (multiscale pooling attention with
decomposed relative position embeddings and residual pooling), published builder unchanged, 34.5M parameters.

Input: clips at its native size (batch, 3, 16, 224, 224) (the builder fixes the spatio-temporal size; it is not
shrunk). Output: Kinetics-400 logits (batch, 400).
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
        self.model = torchvision.models.video.mvit_v2_s(weights=None)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, num_frames, image_size, image_size)]


def get_init_inputs():
    return []
