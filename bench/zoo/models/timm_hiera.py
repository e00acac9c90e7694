"""timm `hiera_tiny_224` (pretrained=False): Hiera-Tiny, a hierarchical ViT without convolutions: mask-unit (windowed)
attention in the first two stages, global attention later, query max-pooling between stages (unroll/reroll token order).

Published timm config unchanged. Input: 224 x 224 RGB images. Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("hiera_tiny_224", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
