"""timm `lambda_resnet26t` (pretrained=False): Lambda-ResNet-26-T (Bello 2021, "LambdaNetworks: Modeling
Long-Range Interactions Without Attention") in timm's ByobNet: a tiered deep stem (three 3 x 3 convs, 24 -> 32 -> 64
channels, the first stride 2, then a 3 x 3 max pool), four stages of 2 bottleneck blocks (widths 256, 512, 1024,
2048, bottleneck ratio 0.25, BatchNorm + ReLU) where the third stage interleaves a bottleneck block with a
lambda block and the fourth stage is two lambda blocks. A lambda block replaces the 3 x 3 conv of the bottleneck
by a lambda layer: a 1 x 1 conv gives multi-head queries (4 heads, BatchNorm'd, key depth 16), one shared key
(softmax-normalized over positions) and one value (BatchNorm'd); the content lambda is the K x V matrix
softmax(K) V^T, shared by all positions; the position lambdas come from a local "lambda convolution" (a 9 x 9
Conv3d over each value channel, r = 9), one K x V matrix per position; each query is multiplied by the sum of
both lambdas; a stride-2 lambda block average-pools its output, its shortcut being a strided 1 x 1 conv + BN.
Global average pool and a linear head.

Published config unchanged (10.96M parameters); images 256 x 256 -> 128 x 128 (the model's min_input_size), so
the lambda layers see 8 x 8 maps (stage 4 pools to 4 x 4).
Input: RGB images (batch, 3, 128, 128). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 256 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("lambda_resnet26t", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
