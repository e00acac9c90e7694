"""timm `halonet26t` (pretrained=False): HaloNet (Vaswani et al., CVPR 2021, "Scaling Local Self-Attention for
Parameter Efficient Visual Backbones") on a ResNet-26-T body. A tiered 3-conv stem and max-pool, then four stages
of bottleneck blocks (BatchNorm, ReLU); in the last two stages the 3 x 3 conv of a bottleneck is replaced by halo
attention (every other block in stage 3, every block in stage 4): the feature map is cut into non-overlapping
8 x 8 query blocks, and each block attends to its 12 x 12 neighbourhood (the block plus a halo of 2 pixels on each
side), gathered by zero-padding the key / value map and unfolding it twice (Tensor.unfold along H and W, with
window 12 and stride 8: overlapping windows, a gather rather than a matmul); logits are q.k scaled plus 2D
relative-position logits computed from separate height and width tables with the pad-flatten-reshape-slice trick
(relative to absolute indexing) and broadcast-added; softmax over the 144 window keys. The stride-2 halo
attention at the start of stage 4 subsamples the queries with a strided 1 x 1 conv (4 x 4 query blocks against
12 x 12 windows of the full-resolution keys). Global average pooling and a linear head.

Not shrunk (12.5M parameters): the published layout at its default 256 x 256 input (block size 8 needs the
stride-32 map to be a multiple of 8).
Kept: block_size 8, halo_size 2, 8 heads, dim_head from the 0.25 bottleneck ratio, stem 'tiered' with max-pool,
1000 classes.
Input: ImageNet-normalised RGB images (2, 3, 256, 256). Output: logits (2, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("halonet26t", pretrained=False)

    def forward(self, images):
        return self.model(images)


def get_inputs():
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return [(torch.rand(batch_size, 3, image_size, image_size) - mean) / std]


def get_init_inputs():
    return []
