"""Refactored MLP whose child wraps original.py."""

import torch
import torch.nn as nn
from children.wrapper import Model as Wrapper


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.inner = Wrapper(in_features, hidden, out_features)

    def forward(self, x):
        return self.inner(x)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
