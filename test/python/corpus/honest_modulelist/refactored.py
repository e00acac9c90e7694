"""Refactored deep tanh MLP: ModuleList of linear children, one tanh child."""

import torch
import torch.nn as nn
from children.linear import Model as Linear
from children.tanh import Model as Tanh


class RefactoredModel(nn.Module):
    def __init__(self, dim=8, depth=3):
        super().__init__()
        self.layers = nn.ModuleList([Linear(dim, dim) for _ in range(depth)])
        self.act = Tanh()

    def forward(self, x):
        for i in range(len(self.layers)):
            x = self.act(self.layers[i](x))
        return x


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 3]
