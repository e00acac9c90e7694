"""timm `mobilevitv2_050` (pretrained=False): MobileViT v2 at width multiplier 0.5 (Mehta & Rastegari 2022,
"Separable Self-attention for Mobile Vision Transformers") in timm's ByobNet. Stem: 3 x 3 stride-2 conv-BN-SiLU
(16 channels). Stages 1-2: MobileNetV2 inverted residuals (1 x 1 expand to twice the input width, depthwise
3 x 3, 1 x 1 project, BN, SiLU; identity residual only where the shape is kept) at 32 and 64 channels.
Stages 3-5 (128, 192, 256 channels, each entered by a stride-2 inverted residual): a MobileViT v2 block:
local representation (depthwise 3 x 3 conv-BN-SiLU, 1 x 1 conv to the transformer width, half the channels:
64, 96, 128), unfold into 2 x 2 patches ([B, C, P = 4 pixels, N patches]), 2 / 4 / 3 linear
transformer blocks, GroupNorm(1), fold back, 1 x 1 conv-BN projection (no concat-fuse with the input, unlike v1).
Each linear transformer block is pre-norm (GroupNorm with one group) with separable linear self-attention: a 1 x 1
conv gives one context-score channel, keys and values; the scores are softmaxed over the N patches, the context
vector is the score-weighted sum of the keys (per pixel position P, so linear in N), broadcast-multiplied with
ReLU(values), then a 1 x 1 output conv; then a 1 x 1 conv MLP (ratio 2, SiLU). Global average pool, linear head.

Published config unchanged (1.37M parameters); images 256 x 256 -> 128 x 128 (fully convolutional; the v2
blocks see 16 x 16, 8 x 8 and 4 x 4 maps, i.e. 64, 16 and 4 patches of 2 x 2).
Input: RGB images (batch, 3, 128, 128). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 256 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("mobilevitv2_050", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
