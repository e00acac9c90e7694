"""timm `dpn68` (pretrained=False): Dual Path Network 68, whose grouped-conv bottleneck blocks split their output into
a residual path (added, ResNeXt-style feature re-use) and a densely connected path (concatenated, DenseNet-style
feature exploration), with pre-activation BN-ReLU-conv ordering.

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
        self.model = timm.create_model("dpn68", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
