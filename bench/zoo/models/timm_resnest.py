"""timm `resnest14d` (pretrained=False): ResNeSt (Zhang et al. 2020, "ResNeSt: Split-Attention Networks"), a ResNet-D
whose bottleneck 3 x 3 conv is a split-attention conv: one grouped 3 x 3 conv produces radix = 2 splits (x cardinality
groups) of the width, BN + ReLU; the splits are summed, global-average-pooled and sent through a two-layer 1x1 conv
MLP (fc1 + BN + ReLU, fc2 to radix x width) whose logits get a radix-softmax across the splits (the r-softmax: per
channel group, softmax over the 2 splits), and the splits are recombined as the attention-weighted sum. With avd
(avd_first False) the stride-2 blocks downsample after the split-attention conv with a 3 x 3 average pool instead of
a strided conv. ResNet-D parts: a deep stem (three 3 x 3 convs, widths 32-32-64, then max-pool) and avg-pool
downsampling shortcuts (2 x 2 average pool then 1 x 1 conv + BN).

Published resnest14d (GluonCV weights): layers [1, 1, 1, 1] (one bottleneck per stage, stage widths 64 / 128 / 256 /
512, expansion 4, so 256 -> 2048 output channels), radix 2, cardinality 1, base_width 64, stem_width 32, deep stem,
avg_down, avd; 224 x 224 images, 1000 classes, 10.6M parameters. The architecture is kept as published (already the
smallest ResNeSt); shrunk only: images 224 -> 128, classes 1000 -> 10 (8.6M parameters).
Input: RGB images (batch, 3, 128, 128). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 224 in the published config
num_classes = 10  # 1000 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("resnest14d", pretrained=False, num_classes=num_classes)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
