"""timm `mambaout_femto` (pretrained=False): MambaOut-Femto (Yu & Wang 2024, "MambaOut: Do We Really Need Mamba
for Vision?"): Mamba-style blocks with the SSM removed, i.e. gated CNN blocks, on channels-last (NHWC) maps.
Stem: 3 x 3 stride-2 conv, LayerNorm, GELU, 3 x 3 stride-2 conv, LayerNorm. Gated CNN block (residual, no
layer scale in femto): x + fc2(GELU(g) * cat(i, DWConv7x7(c))), where LayerNorm(x) -> fc1 (to 2 x 8/3 width)
is split into the gate g (8/3 width), an identity part i and the conv part c (the block width, convolved by a
depthwise 7 x 7 conv after a permute to NCHW and back). Stages of (3, 3, 9, 3) blocks at widths
(48, 96, 192, 288), joined by 3 x 3 stride-2 conv + LayerNorm downsamples. Head: average pool, LayerNorm,
fc to 4 x width, GELU, LayerNorm, fc to the classes. Published config unchanged, 7.3M parameters, at its
pretrained_cfg 224 x 224 (fully convolutional, so any size works; the native one is kept, being fast enough).
Input: RGB images (batch, 3, 224, 224). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("mambaout_femto", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
