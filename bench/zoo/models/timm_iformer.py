"""timm `iformer_t` (pretrained=False): iFormer (Zheng, ICLR 2025, "iFormer: Integrating ConvNet and Transformer for
Mobile Application"), a mobile hybrid whose early stages are a streamlined ConvNeXt and whose late stages interleave
conv blocks with Single-Head Modulation Attention (SHMA). Every conv / projection is a bias-free conv followed by
BatchNorm (ConvNorm, fusable at deployment). Stem: 5 x 5 stride-2 ConvNorm, GELU, 5 x 5 stride-2 ConvNorm, GELU, 1 x 1
ConvNorm (stride 4). Stages at strides 4, 8, 16, 32 (a 3 x 3 stride-2 ConvNorm between them). Conv block: residual of
7 x 7 depthwise ConvNorm -> 1 x 1 ConvNorm (x3) -> GELU -> 1 x 1 ConvNorm. In stages 3 and 4 the blocks after the conv
prefix come in groups of three: a RepCPE (3 x 3 depthwise ConvNorm residual: conditional positional encoding), an SHMA
residual and a 1 x 1 ConvNorm FFN (x2, GELU) residual. SHMA: q and k from 1 x 1 ConvNorms to a reduced width (dim / 2
in stage 3, dim / 4 in stage 4), one head over all positions (scaled dot-product softmax attention, no windows at this
size); a single 1 x 1 ConvNorm gives 2 x dim channels that go through a sigmoid and split into the values (themselves
sigmoid-squashed) and a modulation gate; the attended values are multiplied by the gate and projected by a 1 x 1
ConvNorm. Global average pooling, then a BatchNorm1d + Linear classifier.

Not shrunk (2.9M parameters): the published iformer_t at its 224 x 224 input (stage maps 56, 28, 14, 7).
Kept: dims (32, 64, 128, 256), depths (2, 2, 16, 6), attention groups (0, 0, 3, 2) (stage 3: 6 conv blocks, 3
attention groups, 1 conv block; stage 4: 2 attention groups), head-dim reductions (2, 4), conv ratio 3, FFN ratio 2,
GELU, 1000 classes, no layer scale (layer_scale_init_value 0).
Input: ImageNet-normalised RGB images (2, 3, 224, 224). Output: logits (2, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("iformer_t", pretrained=False)

    def forward(self, images):
        return self.model(images)


def get_inputs():
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return [(torch.rand(batch_size, 3, image_size, image_size) - mean) / std]


def get_init_inputs():
    return []
