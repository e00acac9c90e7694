"""timm `coat_lite_tiny` at 160 x 160 (pretrained=False): CoaT-Lite Tiny, the Co-Scale Conv-Attentional Image
Transformer without the parallel (co-scale) blocks (Xu et al. 2021, "Co-Scale Conv-Attentional Image Transformers";
timm's port of mlpc-ucsd/CoaT, weights `coat_lite_tiny.in1k`). A four-stage pyramid: each stage starts with a
non-overlapping patch embedding (4 x 4 stride-4 conv, then 2 x 2 stride-2 convs; LayerNorm) and prepends its own
class token; widths 64 / 128 / 256 / 320, 8 heads in every stage (head dims 8 / 16 / 32 / 40), 2 serial blocks
per stage, MLP ratios 8 / 8 / 4 / 4 (GELU). Each serial block:
  - convolutional position encoding (CPE, shared by the blocks of a stage): depthwise 3 x 3 conv of the image
    tokens added to them (the class token passes through);
  - LayerNorm, then conv-attention: factorized attention
        FA(Q, K, V) = (d ** -0.5) * Q (softmax_over_tokens(K)^T V)
    (softmax of the keys along the token axis, the d x d context K^T V formed first: linear in the token count),
    plus the convolutional relative position encoding (CRPE, shared per stage)
        EV = Q * DepthwiseConv(V)  (Hadamard product; on the image tokens only, zero for the class token)
    with per-head-group windows: 2 heads 3 x 3, 3 heads 5 x 5, 3 heads 7 x 7; output projection; residual;
  - LayerNorm, MLP, residual.
Final LayerNorm of the last stage, its class token, linear head.

Published config (5.7M parameters) except the image size: 160 x 160 instead of 224 x 224 (img_size kwarg; CoaT needs
a multiple of 32): token maps 40 x 40 / 20 x 20 / 10 x 10 / 5 x 5 instead of 56 / 28 / 14 / 7 (the 7 x 7 CRPE
window then covers the whole last-stage map, as it does at 224). No position embedding table, so the parameter
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
        self.model = timm.create_model("coat_lite_tiny", pretrained=False, img_size=image_size)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
