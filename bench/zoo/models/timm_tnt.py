"""timm `tnt_s_patch16_224` at 112 x 112 (pretrained=False): TNT-S (Han et al. 2021, "Transformer in Transformer";
timm's port of huawei-noah/Efficient-AI-Backbones tnt_pytorch, weights `tnt_s_patch16_224.in1k`). The image is cut
into 16 x 16 patches ("visual sentences"); each patch is embedded on its own by a 7 x 7 stride-4 conv (pad 3) into
a 4 x 4 grid of 24-dim "visual words", plus a learned pixel position embedding (shared by all patches). Each
patch's sentence embedding (384 dims) is LayerNorm -> Linear(16 * 24 -> 384) -> LayerNorm of its flattened words,
a class token prepended and a learned patch position embedding added. 12 TNT blocks, each:
  - inner transformer, per patch over its 16 words (batch * patches sequences): pre-LN attention with 4 heads of 6
    (separate bias-free qk and v projections), pre-LN MLP (ratio 4, GELU);
  - the words fed back into their sentence: patch += LayerNorm(Linear(LayerNorm(flattened words))) (no bias;
    the class token untouched);
  - outer transformer over the class token and patches: pre-LN attention with 6 heads of 64, pre-LN MLP (ratio 4).
Final LayerNorm, linear head on the class token. Explicit softmax attention (no SDPA).

Published config (23.8M parameters, trunc-normal(0.02) Linear / position / class-token inits) except the image
size: 112 x 112 instead of 224 x 224 (img_size kwarg): 7 x 7 = 49 patches instead of 14 x 14 = 196, each still
16 x 16 pixels with 4 x 4 inner words, the patch position embedding built for 49 + 1 tokens (23.7M parameters).
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
        self.model = timm.create_model("tnt_s_patch16_224", pretrained=False, img_size=image_size)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
