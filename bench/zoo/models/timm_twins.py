"""timm `twins_svt_small` at 160 x 160 (pretrained=False): Twins-SVT-S (Chu et al. 2021, "Twins: Revisiting the
Design of Spatial Attention in Vision Transformers"; timm's port of Meituan-AutoML/Twins, weights
`twins_svt_small.in1k`). A four-stage pyramid: each stage starts with a non-overlapping patch embedding (4 x 4
stride-4 conv, then 2 x 2 stride-2 convs; LayerNorm), widths 64 / 128 / 256 / 512, heads 2 / 4 / 8 / 16 (head dim
32), depths 2 / 2 / 10 / 4, MLP ratio 4, pre-LayerNorm (eps 1e-6) residual blocks that alternate two token mixers:
  - LSA (locally-grouped self-attention, even blocks): the token map is zero-padded on the right / bottom to a
    multiple of the 7 x 7 window, and full multi-head attention runs inside each window (padded tokens included,
    no mask: timm's "forward_padding" variant), then the padding is cropped;
  - GSA (global sub-sampled attention, odd blocks): queries from every token, keys / values from the map
    sub-sampled by a sr x sr stride-sr conv + LayerNorm (sr = 8 / 4 / 2 / 1 per stage; stage 4 attends to all
    tokens unreduced).
After the first block of each stage the conditional position encoding (PEG, from CPVT): a depthwise 3 x 3 conv of
the token map added to it. Final LayerNorm, mean over tokens, linear head. Fused SDPA attention.

Published config (24.1M parameters, trunc-normal(0.02) Linear init) except the image size: 160 x 160 instead of
224 x 224 (img_size kwarg; Twins needs a multiple of 32): token maps 40 x 40 / 20 x 20 / 10 x 10 / 5 x 5 instead
of 56 / 28 / 14 / 7, so LSA pads them to 42 / 21 / 14 / 7 (6 x 6, 3 x 3, 2 x 2, 1 x 1 windows; at 224 no padding
is needed) and GSA attends to 5 x 5 keys in stages 1-3 (7 x 7 at 224). No position embedding, so the parameter
count is unchanged.
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
        self.model = timm.create_model("twins_svt_small", pretrained=False, img_size=image_size)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
