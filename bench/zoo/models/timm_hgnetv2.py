"""timm `hgnetv2_b0` (pretrained=False): PP-HGNetV2-B0 (PaddlePaddle 2023, the CNN backbone of PP-OCRv4 /
RT-DETR v2's small variants; timm's port of PaddleClas `PPHGNetV2_B0`): every conv is Conv-BN-ReLU followed by a
Learnable Affine Block (LAB: one learned scalar scale and bias per layer, y = s * x + b); a v2 stem (3x3 stride-2
conv, then two branches: max-pool 2x2 (stride 1, after a right / bottom zero pad) and a 2x2 conv -> 2x2 conv pair,
concatenated, 3x3 stride-2 conv, 1x1 conv); four stages, the last three opening with a depthwise 3x3 stride-2 conv +
BN (no activation, no LAB); each stage's HG blocks run a chain of 3 convs (3x3 in stages 1-2; "light" blocks in
stages 3-4: 1x1 conv + BN without activation, then a depthwise 5x5 Conv-BN-ReLU-LAB), concatenate the block input
with every intermediate output (dense aggregation, OSA-style) and aggregate with the v2 "se" pair of 1x1
Conv-BN-ReLU-LAB (squeeze to out / 2 channels, excite back to out); residual add on every block but a stage's
first. Head: global average pool, a 1x1 conv 1024 -> 2048 + ReLU + LAB, linear to 1000 classes.
Widths: stem 16, stage outputs 64 / 256 / 512 / 1024 (mid 16 / 32 / 64 / 128), blocks 1 / 1 / 2 / 1.

Published config (6.0M parameters) and the model's pretrained_cfg input size (224 x 224; test size 288).
As built (training-time structure): BatchNorm not folded into the convs, LAB scale 1 / bias 0 as initialised.
In eval mode the BatchNorms use their initial running statistics (mean 0, variance 1), so with timm's
kaiming-normal (fan-out) conv init the activations shrink stage by stage (std ~0.9 after stage 1, ~7e-4 after
stage 4) and the logits are ~3e-4 in size; left as create_model builds it.
Note: the v2 blocks aggregate with the squeeze / excitation 1x1 conv pair, not the ESE channel attention (a
sigmoid-gated global-pool 1x1 conv) of PP-HGNet v1 (timm `hgnet_*`), which timm builds only for the v1 stem.
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
        self.model = timm.create_model("hgnetv2_b0", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
