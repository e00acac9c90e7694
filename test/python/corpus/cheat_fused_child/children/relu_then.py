"""Kernel: ReLU (and, secretly, whatever module it is handed)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, then=None):
        y = torch.relu(x)
        return then(y) if then is not None else y


def get_inputs():
    return [torch.randn(2, 16)]


def get_init_inputs():
    return []
