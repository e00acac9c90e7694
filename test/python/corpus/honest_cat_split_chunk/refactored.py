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
        h = self.fc1(x)
        a, b = torch.chunk(h, 2, dim=-1)
        parts = torch.split(torch.cat((a, b), -1), 4, dim=1)
        h = torch.cat(list(parts), dim=1)
        h = torch.stack(torch.unbind(h, 0), 0)
        h = torch.stack([h, h]).squeeze(0)[0].unsqueeze(0).squeeze(0)
        return self.fc2(self.act(h))


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
