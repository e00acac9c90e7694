"""timm `davit_tiny` (pretrained=False): DaViT-Tiny (Ding et al. 2022, "DaViT: Dual Attention Vision
Transformers"): each stage alternates spatial window attention (7 x 7 windows over tokens) and channel group
attention (attention across channels within groups, over all tokens), with convolutional position encodings
(depthwise 3 x 3 conv) before each attention, 28M parameters.

Shrunk: 128 x 128 images instead of the pretrained 224 x 224 (the feature maps 32/16/8/4 are padded up to the
7 x 7 window where needed, as timm does).
Input: RGB images (batch, 3, 128, 128). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 224 in the pretrained config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("davit_tiny", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
