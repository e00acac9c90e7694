"""timm `dla34` (pretrained=False): Deep Layer Aggregation, a ResNet-style backbone whose stages are merged by
recursive tree-structured aggregation nodes (iterative + hierarchical deep aggregation).

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
        self.model = timm.create_model("dla34", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
