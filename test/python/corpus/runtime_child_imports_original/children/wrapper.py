"""Looks like a child; really the parent."""

import torch
import torch.nn as nn
from original import Model as Original


class Model(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.m = Original(in_features, hidden, out_features)

    def forward(self, x):
        return self.m(x)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
