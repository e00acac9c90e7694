"""Refactored: the loop's name declared a number, so that doubling each row reads as host arithmetic."""

import torch
import torch.nn as nn
from children.linear import Model as Linear


class RefactoredModel(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = Linear(dim, dim)

    def forward(self, x):
        outs = []
        row: int
        for row in x:
            outs.append(self.proj(row * 2))
        return torch.stack(outs)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return [8]
