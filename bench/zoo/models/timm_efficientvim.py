"""timm `efficientvim_m1` (pretrained=False): EfficientViM (Lee et al., CVPR 2025, "EfficientViM: Efficient Vision
Mamba with Hidden State Mixer based State Space Duality"), a vision Mamba whose token mixer, HSM-SSD, runs the
state-space duality in a reduced hidden-state space: per image, B, C and dt come from a 1x1 projection plus a
depthwise 3x3 conv of the tokens, a = softmax over the tokens of (dt + A) per state channel, the hidden state is
h = x (a * B)^T (channels x state_dim: a few dozen "state tokens" instead of H x W tokens), the gating and output
projection (z gate with SiLU, skip D) are applied to h rather than to every token, and y = h C maps back to the
tokens; blocks are depthwise conv -> HSM-SSD (after LayerNorm2d) -> depthwise conv -> 1x1 FFN, each with a sigmoid
LayerScale interpolation; a 4-conv stride-16 stem, MBConv + squeeze-excite patch merging with depthwise bypasses,
and a head that fuses, with softmax weights, four classifiers over the pooled (LayerNormed) last hidden state of
each stage and the pooled final map.

Published size (efficientvim_m1: embed dims (128, 192, 320), depths (2, 2, 2), state dims (49, 25, 9), 224 x 224
ImageNet images, 1000 classes, 6.7M parameters), unfused (training-form) Conv-BN layers.
Input: ImageNet-normalised RGB images (batch, 3, 224, 224). Output: logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("efficientvim_m1", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return [(torch.rand(batch_size, 3, image_size, image_size) - mean) / std]


def get_init_inputs():
    return []
