"""Refactored: the input annotated as a number, so that its doubling reads as host arithmetic."""

import torch
import torch.nn as nn
from children.linear import Model as Linear


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = Linear(in_features, hidden)
        self.fc2 = Linear(hidden, out_features)

    def forward(self, w: int):
        scale = w * 2
        return self.fc2(self.fc1(scale))


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
