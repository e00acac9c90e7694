"""Refactored: the arithmetic on the count (a number) stays in the parent."""

import torch
import torch.nn as nn
from children.linear import Model as Linear


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = Linear(in_features, hidden)
        self.fc2 = Linear(hidden, out_features)

    def forward(self, x, count: int):
        keep = 16 - count
        h = self.fc1(x)[:, :keep]
        return self.fc2(torch.cat([h, h.new_zeros(h.shape[0], 16 - h.shape[1])], dim=1)), count == 1


def get_inputs():
    return [torch.randn(2, 8), torch.tensor(3)]


def get_init_inputs():
    return [8, 16, 4]
