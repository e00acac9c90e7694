"""timm `pit_s_224` at 160 x 160 (pretrained=False): PiT-S, the Pooling-based Vision Transformer (Heo et al. 2021,
"Rethinking Spatial Dimensions of Vision Transformers", NAVER AI; timm's port of naver-ai/pit, weights
`pit_s_224.in1k`). A ViT whose token grid shrinks and widens between stages, as a CNN's does:
  - stem: a 16 x 16 stride-8 conv (overlapping patches, no padding) to a 144-wide token map, plus a learned
    position embedding of the map's size (trunc-normal 0.02), and one class token;
  - 3 stages of pre-LayerNorm (eps 1e-6) ViT blocks (qkv bias, MLP ratio 4, GELU): widths 144 / 288 / 576, heads
    3 / 6 / 12 (head dim 48), depths 2 / 6 / 4; attention runs over [class token; all map tokens];
  - between stages the pooling layer: the token map is reshaped to 2-D and reduced by a depthwise-grouped 3 x 3
    stride-2 conv (padding 1, groups = in channels, channels doubled: each input channel feeds 2 output
    channels), while the class token goes through a Linear to the new width;
  - final LayerNorm on the class token, linear head.
Fused SDPA attention.

Published config (23.5M parameters) except the image size: 160 x 160 instead of 224 x 224 (img_size kwarg): token
maps 19 x 19 -> 10 x 10 -> 5 x 5 (plus the class token) instead of 27 x 27 -> 14 x 14 -> 7 x 7; the position
embedding shrinks accordingly (144 x 19 x 19 instead of 144 x 27 x 27: 23.41M parameters instead of 23.46M).
Input: RGB images (batch, 3, 160, 160). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 160  # 224 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("pit_s_224", pretrained=False, img_size=image_size)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
