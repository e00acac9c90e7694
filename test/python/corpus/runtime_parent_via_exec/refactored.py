"""Refactored MLP whose only child is built from the parent's source at import time."""

import torch
import torch.nn as nn
from children.block import Model as Block


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.block = Block(in_features, hidden, out_features)

    def forward(self, x):
        return self.block(x)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
