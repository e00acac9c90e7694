"""timm `focalnet_tiny_srf` at 64 x 64 (pretrained=False): FocalNet-T with small receptive fields (Yang et al. 2022,
"Focal Modulation Networks"), a hierarchical conv-layout network (NCHW throughout, 1x1 convs as the linear layers,
LayerNorm2d) whose token mixer is focal modulation instead of self-attention: a 1x1 conv splits each token into a
query q, a context c and focal_level + 1 gates; the context goes through a stack of focal_level = 2 depthwise convs
(kernels 3 and 5, each followed by GELU, applied one after the other so the receptive field grows), plus a global
level (GELU of the spatial mean of the last level); the levels are summed weighted by their per-pixel gates, mixed
by a 1x1 conv h into the modulator, and the output is q * h(context) followed by a 1x1 projection (no softmax, no
token-token attention). Blocks: x + FocalModulation(LN(x)), x + MLP(LN(x)) (1x1 convs, ratio 4, GELU), no
LayerScale (the srf variants have none). Stem: 4x4 stride-4 conv + LayerNorm2d; between stages a 2x2 stride-2 conv
+ LayerNorm2d. Depths 2 / 2 / 6 / 2, widths 96 / 192 / 384 / 768; final LayerNorm2d, global average pool, linear
head.

Published config (28.4M parameters, 1000 classes) except the image size: 64 x 64 instead of 224 x 224 (the model is
fully convolutional with no position embedding, so no kwarg changes; feature maps 16 / 8 / 4 / 2 instead of 56 /
28 / 14 / 7).
Input: RGB images (batch, 3, 64, 64). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 64  # 224 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("focalnet_tiny_srf", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
