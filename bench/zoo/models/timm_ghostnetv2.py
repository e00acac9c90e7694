"""timm `ghostnetv2_100` (pretrained=False): GhostNetV2-1.0x (Tang et al. 2022, "GhostNetV2: Enhance Cheap
Operation with Long-Range Attention"): MobileNetV3-like inverted bottlenecks built from Ghost modules (a 1 x 1
primary conv plus a cheap depthwise conv generating the other half of the channels); from the third block on
the expanding Ghost module carries DFC attention (a 2x avg-pooled branch: 1 x 1 conv, 1 x 5 and 5 x 1 depthwise
convs, a sigmoid gate upsampled back to full size that multiplies the Ghost output); squeeze-excitation in
some blocks, a 1280-wide conv head.

Published width multiplier 1.0 and block layout unchanged (it is already small); shrunk: 128 x 128 images
instead of 224 x 224 and 10 classes instead of 1000 (4.9M parameters instead of 6.2M).
Input: RGB images (batch, 3, 128, 128). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 224 in the pretrained config
num_classes = 10  # 1000 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("ghostnetv2_100", pretrained=False, num_classes=num_classes)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
