"""Refactored MLP: sums fc1's output over time."""

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
        h = self.fc1(x)
        acc = h[:, 0]
        for t in range(1, h.shape[1]):
            acc += h[:, t]
        return self.fc2(self.act(acc))


def get_inputs():
    return [torch.randn(2, 3, 8)]


def get_init_inputs():
    return [8, 16, 4]
