"""Refactored MLP whose 'activation child' also runs fc2 (a fused cheat hidden in a child)."""

import torch
import torch.nn as nn
from children.linear import Model as Linear
from children.relu_then import Model as ReluThen


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = Linear(in_features, hidden)
        self.fc2 = Linear(hidden, out_features)
        self.act = ReluThen()

    def forward(self, x):
        return self.act(self.fc1(x), self.fc2)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
