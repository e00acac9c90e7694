"""torchvision `squeezenet1_1` (weights=None): SqueezeNet 1.1, a small CNN of Fire modules (a 1 x 1 squeeze conv
feeding parallel 1 x 1 and 3 x 3 expand convs whose outputs are concatenated), max pooling between groups, and a
1 x 1 conv classifier followed by global average pooling (no fully connected layer).

Published torchvision config unchanged. Input: 224 x 224 RGB images. Output: ImageNet logits (batch, 1000).
"""
import torch
from torch import nn
from torchvision.models import squeezenet1_1

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = squeezenet1_1(weights=None)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
