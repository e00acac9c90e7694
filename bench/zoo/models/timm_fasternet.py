"""timm `fasternet_t0` (pretrained=False): FasterNet-T0 (Chen et al. 2023, "Run, Don't Walk: Chasing Higher FLOPS
for Faster Neural Networks", CVPR), a CNN built on the partial convolution (PConv): in every block a regular 3 x 3
conv is applied to only the first 1/n_div = 1/4 of the channels and the other 3/4 pass through untouched (split ->
conv -> concat), and a pointwise "T-shaped" MLP (1 x 1 conv to 2 x width, BatchNorm, GELU, 1 x 1 conv back) then
mixes all channels; the block is residual around both (no layer scale in T0). Stem: 4 x 4 stride-4 conv + BatchNorm
(patch embedding); stages of (1, 2, 8, 2) blocks at widths (40, 80, 160, 320), joined by 2 x 2 stride-2 conv +
BatchNorm patch merging; head: global average pool, 1 x 1 conv to 1280, GELU, linear to the classes. No attention,
no depthwise conv: PConv cuts FLOPs and memory access at once, a spatial-mixing choice no other zoo CNN makes.
Published config unchanged (3.9M parameters) at its pretrained_cfg 224 x 224, in eval mode (BatchNorm running
statistics, drop path off).
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
        self.model = timm.create_model("fasternet_t0", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
