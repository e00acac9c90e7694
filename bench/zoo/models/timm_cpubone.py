"""timm `cpubone_s0` (pretrained=False): CPUBone-S0 (Nottebaum, Dunnhofer & Micheloni, "CPUBone: Efficient Vision
Backbone Design for Devices with Low Parallelization Capabilities", CVPR Findings 2026, arXiv 2603.26425), a hybrid
conv / attention backbone tuned for CPU latency rather than MACs. Distinctive choices:
  - Grouped, fused inverted residuals: every local block is a FusedMBConv whose spatial expansion conv is GROUPED
    (groups 2) and expands 4x in one k x k conv (BatchNorm, Hardswish), then a 1 x 1 projection with BatchNorm.
  - 2 x 2 kernels: in the attention stages the local convs use 2 x 2 kernels at stride 1 (kept "same"-sized by an
    asymmetric left / top ZeroPad2d) instead of 3 x 3.
  - Conv attention: a block's context branch is GroupNorm(1 group) -> a 2 x 2 depthwise conv (stride 2 in stage 3,
    so attention runs on a 2x-downsampled grid; stride 1 in stage 4) + BatchNorm -> a 1 x 1 conv emitting q / k / v
    for few, half-width heads (heads = dim * 0.5 // 30: 1 head of 56 in stage 3, 3 of 37 in stage 4) -> softmax
    attention over all positions -> a fused 1 x 1 output projection -> parameter-free NEAREST upsampling back to the
    input grid (cropped), residual; then a 1 x 1-conv GELU MLP (ratio 4, GroupNorm(1) first), residual; then the
    2 x 2 FusedMBConv, residual.
  - Layout: stride-2 3 x 3 stem conv (BN, Hardswish); stages 1-2 single stride-2 FusedMBConvs; stages 3-4 a stride-2
    FusedMBConv then 2 and 3 CPUBone blocks; widths (14,) 28, 56, 112, 224. Head: 1 x 1 conv to 1536 (BN, Hardswish),
    global average pool, Linear 1536 -> 1600 + LayerNorm + Hardswish, Linear to the classes.
Published config unchanged (8.7M parameters) at its pretrained_cfg 224 x 224, in eval mode (BatchNorm running
statistics, dropout off).
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
        self.model = timm.create_model("cpubone_s0", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
