"""Tiny MLP: fc1 -> act -> fc2."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x):
        n = x.shape[-1]
        keep = torch.ones(n, n, dtype=torch.bool).tril()[-1]
        scale = torch.div(n, 4, rounding_mode="floor") * torch.eye(2)[0, 0]
        h = self.fc1(x[:, keep] if int(scale) > 0 else x)
        return self.fc2(torch.relu(h))


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
