"""timm `volo_d1_224` at 112 x 112 (pretrained=False): VOLO-D1 (Yuan et al. 2021, "VOLO: Vision Outlooker for
Visual Recognition"; timm's port of sail-sg/volo, weights `volo_d1_224.sail_in1k`). Patch embedding: a conv stem
(7x7 stride-2 conv, two 3x3 convs, 64 channels, each + BN + ReLU) and a 4x4 stride-4 conv to 192 channels
(stride 8 in all). Stage 1: 4 Outlooker blocks (pre-LayerNorm residuals, MLP ratio 3) at dim 192, 6 heads, whose
token mixer is outlook attention: the values v = W_v x are unfolded into 3x3 neighbourhoods (nn.Unfold, stride 2,
pad 1); the attention is not a query-key product but is generated directly from the (2x2 average-pooled) token
itself, a Linear(192 -> 6 * 3^4) giving per head and pooled position a 9 x 9 map over the neighbourhood
(softmax over the last axis, scaled by head_dim^-0.5); the weighted neighbourhoods are summed back
onto the grid with F.fold (overlap-add of the 3x3 windows). Then a 2x2 stride-2 conv downsample to 384 channels,
a learned position embedding, stages 2-4: 4 + 8 + 2 = 14 plain multi-head self-attention Transformer blocks
(dim 384, 12 heads of 32, MLP ratio 3, no qkv bias); then a class token is prepended and 2 CaiT-style
class-attention blocks (only the class token queries, only it goes through the MLP); final LayerNorm. Head
(token labeling): logits = head(cls token) + 0.5 * max over the patch tokens of aux_head(token).

Published config (26.6M parameters, trunc-normal(0.02) Linear init) except the image size: 112 x 112 instead of
224 x 224 (img_size kwarg): the outlooker runs on a 14 x 14 grid instead of 28 x 28, the transformer stages on
7 x 7 = 49 tokens instead of 196, and the position embedding is built for 7 x 7 (26.58M parameters).
Input: RGB images (batch, 3, 112, 112). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 112  # 224 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("volo_d1_224", pretrained=False, img_size=image_size)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
