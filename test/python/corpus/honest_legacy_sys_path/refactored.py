"""Refactored MLP in the original workspace's layout."""

import sys
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).parent / "children"))
from linear import Model as Linear  # noqa: E402
from relu import Model as ReLU  # noqa: E402


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = Linear(in_features, hidden)
        self.act = ReLU()
        self.fc2 = Linear(hidden, out_features)

    def forward(self, x):
        x = self.fc1(x)
        x = self.act(x)
        return self.fc2(x)


batch_size = 2


def get_inputs():
    return [torch.randn(batch_size, 8)]


def get_init_inputs():
    return [8, 16, 4]
