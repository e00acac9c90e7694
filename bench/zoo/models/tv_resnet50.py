"""torchvision `resnet50` (weights=None): ResNet-50 (bottleneck residual CNN, 25.6M parameters).

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
        self.model = torchvision.models.resnet50(weights=None)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
