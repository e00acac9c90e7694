"""Refactored pre-norm residual MLP block."""

import torch
import torch.nn as nn
from children.gelu import Model as GELU
from children.layer_norm import Model as LayerNorm
from children.linear import Model as Linear


class RefactoredModel(nn.Module):
    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.ln = LayerNorm(dim)
        self.fc1 = Linear(dim, hidden)
        self.act = GELU()
        self.fc2 = Linear(hidden, dim)

    def forward(self, x):
        residual = x
        h = self.fc2(self.act(self.fc1(self.ln(x))))
        h += residual
        return h


def get_inputs():
    return [torch.randn(2, 3, 8)]


def get_init_inputs():
    return [8, 16]
