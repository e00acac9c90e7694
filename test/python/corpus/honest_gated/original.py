"""Gated linear unit."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.gate = nn.Linear(dim, hidden)
        self.value = nn.Linear(dim, hidden)

    def forward(self, x):
        return torch.sigmoid(self.gate(x)) * self.value(x)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16]
