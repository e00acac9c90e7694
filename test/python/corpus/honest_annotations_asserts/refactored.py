"""Refactored MLP: children only."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from children.linear import Model as Linear
from children.relu import Model as ReLU


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = Linear(in_features, hidden)
        self.fc2 = Linear(hidden, out_features)
        self.act = ReLU()
        self.in_features: int = in_features

    def forward(self, x: torch.Tensor):
        assert x.dim() == 2, f"expected 2-D input, got {x.dim()}-D"
        assert x.shape[-1] == self.in_features
        h: torch.Tensor = self.fc1(x)
        out: torch.Tensor = self.fc2(self.act(h))
        assert out.shape[0] == x.shape[0], f"batch {out.shape[0]} != {x.shape[0]}"
        return out


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
