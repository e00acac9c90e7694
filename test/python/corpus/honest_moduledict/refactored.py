"""Refactored deep tanh MLP: ModuleDict of linear children."""

import torch
import torch.nn as nn
from children.linear import Model as Linear
from children.tanh import Model as Tanh


class RefactoredModel(nn.Module):
    def __init__(self, dim=8, depth=3):
        super().__init__()
        self.layers = nn.ModuleDict({f"l{i}": Linear(dim, dim) for i in range(depth)})
        self.acts = nn.ModuleList([Tanh() for _ in range(depth)])

    def forward(self, x):
        for idx, (name, layer) in enumerate(self.layers.items()):
            x = self.acts[idx](layer(x))
        return x


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 3]
