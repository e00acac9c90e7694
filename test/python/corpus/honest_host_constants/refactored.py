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

    def forward(self, x):
        n = x.shape[-1]
        keep = torch.ones(n, n, dtype=torch.bool).tril()[-1]
        scale = torch.div(n, 4, rounding_mode="floor") * torch.eye(2)[0, 0]
        h = self.fc1(x[:, keep] if int(scale) > 0 else x)
        return self.fc2(self.act(h))


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
