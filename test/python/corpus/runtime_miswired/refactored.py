"""Refactored square MLP, miswired: relu after fc2."""

import torch
import torch.nn as nn
from children.linear import Model as Linear
from children.relu import Model as ReLU


class RefactoredModel(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc1 = Linear(dim, dim)
        self.fc2 = Linear(dim, dim)
        self.act = ReLU()

    def forward(self, x):
        return self.act(self.fc2(self.fc1(x)))


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8]
