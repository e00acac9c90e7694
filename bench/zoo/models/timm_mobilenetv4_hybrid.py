"""timm `mobilenetv4_hybrid_medium` (pretrained=False): MobileNetV4 Hybrid-Medium, universal inverted bottleneck (UIB)
blocks plus mobile multi-query attention (MQA, with strided key/value downsampling) in the last stages.

Published timm config unchanged. Input: 256 x 256 RGB images (its pretrained_cfg input size). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("mobilenetv4_hybrid_medium", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
