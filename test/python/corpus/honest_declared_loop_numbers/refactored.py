"""Refactored: the loop's names declared numbers (0-dim integer tensors read out of the grid); the projection a
child."""

import torch
import torch.nn as nn
from children.linear import Model as Linear


class RefactoredModel(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = Linear(dim, dim)

    def forward(self, x, grid, offsets):
        outs = []
        t: int
        hw: int
        start: int
        for t, hw, start in zip(grid[:, 0], grid[:, 1], offsets):
            step = 2 if t > 1 else 1
            rows = x[start:start + t * hw]
            outs.append(self.proj(rows[::step]))
        return torch.cat(outs)


def get_inputs():
    return [torch.randn(12, 8), torch.tensor([[2, 3], [1, 6]]), torch.tensor([0, 6])]


def get_init_inputs():
    return [8]
