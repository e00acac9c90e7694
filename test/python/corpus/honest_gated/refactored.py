"""Refactored gated linear unit."""

import torch
import torch.nn as nn
from children.linear import Model as Linear
from children.mul import Model as Mul
from children.sigmoid import Model as Sigmoid


class RefactoredModel(nn.Module):
    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.gate = Linear(dim, hidden)
        self.value = Linear(dim, hidden)
        self.sigmoid = Sigmoid()
        self.mul = Mul()

    def forward(self, x):
        return self.mul(self.sigmoid(self.gate(x)), self.value(x))


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16]
