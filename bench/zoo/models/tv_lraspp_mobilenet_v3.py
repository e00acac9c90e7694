"""torchvision `lraspp_mobilenet_v3_large` (weights=None): Lite R-ASPP semantic segmentation head (a 1x1 conv branch
gated by a global-pooled sigmoid branch, fused with a low-level skip) on a dilated MobileNetV3-Large backbone.

Published torchvision config unchanged (21 classes). Input: 224 x 224 RGB images. Output: logits['out'] (batch, 21, 224, 224).
"""
import torch
from torch import nn
from torchvision.models.segmentation import lraspp_mobilenet_v3_large

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)

    def forward(self, x):
        return self.model(x)["out"]


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
