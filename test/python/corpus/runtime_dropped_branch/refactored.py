"""Refactored block that silently drops the branch (its weights are zero at init)."""

import torch
import torch.nn as nn
from children.linear import Model as Linear
from children.relu import Model as ReLU


class RefactoredModel(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc_main = Linear(dim, dim)
        self.fc_branch = Linear(dim, dim)
        self.act = ReLU()

    def forward(self, x):
        return self.fc_main(x)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8]
