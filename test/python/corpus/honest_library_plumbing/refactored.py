"""Refactored: the library helpers stay in the parent (their source is read: a filter of a dict, and
arithmetic on the feature map's size)."""

import torch
import torch.nn as nn
from torchvision.ops.poolers import _filter_input, _setup_scales
from children.conv2d import Model as Conv2d
from children.linear import Model as Linear


class RefactoredModel(nn.Module):
    def __init__(self, cin=3, cout=4, classes=5):
        super().__init__()
        self.conv = Conv2d(cin, cout)
        self.fc = Linear(cout, classes)

    def forward(self, x, image_shapes: list[tuple[int, int]]):
        feats = _filter_input({"0": self.conv(x)[:, :, ::2, ::2], "pool": x}, ["0"])
        scales, _ = _setup_scales(feats, image_shapes, 224, 4)
        step = int(round(1 / scales[0]))
        return self.fc(feats[0].flatten(2)[:, :, ::step].transpose(1, 2))


def get_inputs():
    return [torch.randn(2, 3, 8, 8), [(8, 8), (8, 8)]]


def get_init_inputs():
    return [3, 4, 5]
