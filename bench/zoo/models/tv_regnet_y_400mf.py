"""torchvision `regnet_y_400mf` (weights=None): RegNetY-400MF (grouped-conv residual blocks with squeeze-excitation).

Input: 224 x 224 RGB images (torchvision's ImageNet resolution). Output: ImageNet logits (batch, 1000).
"""
import torch
import torchvision
from torch import nn

batch_size = 1
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.regnet_y_400mf(weights=None)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
