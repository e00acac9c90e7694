"""torchvision `maxvit_t` (weights=None): MaxViT-T (Tu et al. 2022, "MaxViT: Multi-Axis Vision Transformer").
Stem: a stride-2 3x3 conv + BN + GELU and a 3x3 conv, 64 channels. Four stages of (2, 2, 5, 2) MaxViT blocks at
widths (64, 128, 256, 512), the first block of each stage downsampling by 2; each block is an MBConv (pre-BN, 1x1
expand 4x + BN + GELU, 3x3 depthwise conv (strided when downsampling) + BN + GELU, squeeze-excitation 0.25 with
SiLU, 1x1 project; the shortcut is a 3x3 stride-2 avg-pool + 1x1 conv when the block downsamples) followed by two
partition-attention layers: block attention (the map split into non-overlapping 7 x 7 windows, self-attention within
each) and grid attention (the map split into a 7 x 7 grid of dilated, strided token groups spanning the whole image,
self-attention within each group), both pre-LayerNorm with 32-wide heads, a learned relative position bias over the
13 x 13 offsets of a 7 x 7 partition, an MLP (4x, GELU) and stochastic depth (inactive in eval). Head: global average
pool, LayerNorm, Linear 512 -> 512 + Tanh, Linear -> 1000 classes.

Published config (30.92M parameters), at its native 224 x 224, which is already the smallest size it accepts:
torchvision's MaxVit checks at construction that every stage's feature map (ceil(H/4), ceil(H/8), ceil(H/16),
ceil(H/32)) is divisible by the partition size 7, and maxvit_t fixes partition_size = 7, so the accepted sizes up to
448 are only 221 ... 224 and 445 ... 448 (112, 128, 160, 192, 220 are all rejected). Stage maps 56, 28, 14, 7 a side:
64, 16, 4 and 1 windows (and grid groups) of 7 x 7 per image.
Input: RGB images (2, 3, 224, 224). Output: ImageNet logits (2, 1000).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 224  # the smallest size maxvit_t's partition size 7 accepts (any of 221 ... 224)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.maxvit_t(weights=None, input_size=(image_size, image_size))

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
