"""timm `efficientvit_b0` (pretrained=False): EfficientViT-B0 from MIT Han Lab (Cai et al. 2023, "EfficientViT:
Multi-Scale Linear Attention for High-Resolution Dense Prediction"; not the Microsoft EfficientViT-M family):
a conv stem and MBConv stages (widths 8-16-32-64-128, depths 1-2-2-2-2), then in the last two stages
EfficientViT blocks: lightweight multi-scale linear attention (ReLU kernel attention, O(N) in tokens, with
multi-scale q/k/v aggregation by depthwise 5 x 5 convs) followed by an MBConv; a 1024 -> 1280 classifier head.

Published widths and depths unchanged (they are already tiny); shrunk: 128 x 128 images instead of 224 x 224 and
10 classes instead of 1000 (2.1M parameters instead of 3.4M).
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
        self.model = timm.create_model("efficientvit_b0", pretrained=False, num_classes=num_classes)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
