"""timm `hrnet_w18_small` at 128 x 128 (pretrained=False): HRNet-W18-Small-v1 (Wang et al. 2019, "Deep
High-Resolution Representation Learning for Visual Recognition"; timm's port of HRNet-Image-Classification
`w18_small_v1`, weights `hrnet_w18_small.gluon_in1k`): instead of one resolution-reducing chain, the network keeps
parallel branches at strides 4 / 8 / 16 / 32 alive side by side and repeatedly exchanges information between them.
Stem: two 3x3 stride-2 Conv-BN-ReLU (64 channels, stride 4); stage 1: one ResNet Bottleneck (planes 32, out 128).
Each later stage begins with a transition (a 3x3 Conv-BN-ReLU per kept branch whose width changes, and a new
3x3 stride-2 Conv-BN-ReLU branch off the lowest-resolution one) and runs one HighResolutionModule: 2 ResNet
BasicBlocks on every branch in parallel, then the fuse layers, where every output branch i sums all branches j:
j == i as is, j > i (coarser) through a 1x1 Conv-BN and a nearest upsample by 2^(j - i), j < i (finer) through a
chain of i - j 3x3 stride-2 Conv-BNs (ReLU between them), followed by a ReLU. Branch widths: stage 2 16 / 32,
stage 3 16 / 32 / 64, stage 4 16 / 32 / 64 / 128. Classification head: an "incre" Bottleneck per branch (out
128 / 256 / 512 / 1024), the four maps merged from fine to coarse (y = incre_i + 3x3 stride-2 Conv-BN-ReLU(y)),
a 1x1 Conv-BN-ReLU to 2048, global average pool, linear to 1000 classes.

Published config (13.2M parameters, timm inits: kaiming-normal fan-out convs, BN weight 1 / bias 0; in eval mode
the BNs use their initial running statistics) except the image size: 128 x 128 instead of 224 x 224 (the net is
fully convolutional, so no parameter changes; the branches run at 32 x 32 / 16 x 16 / 8 x 8 / 4 x 4).
Input: RGB images (batch, 3, 128, 128). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 224 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("hrnet_w18_small", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
