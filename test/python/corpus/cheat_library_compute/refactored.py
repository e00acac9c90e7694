"""Refactored: the areas computed by the library's function in the parent."""

import torch
import torch.nn as nn
from torchvision.ops.boxes import box_area
from children.linear import Model as Linear


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8):
        super().__init__()
        self.fc = Linear(in_features, 4)

    def forward(self, x):
        return box_area(self.fc(x))


def get_inputs():
    return [torch.randn(6, 8)]


def get_init_inputs():
    return [8]
