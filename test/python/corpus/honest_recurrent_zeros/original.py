"""Tiny tanh RNN."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.hidden = hidden
        self.ih = nn.Linear(dim, hidden)
        self.hh = nn.Linear(hidden, hidden)

    def forward(self, x):
        h = torch.zeros(x.shape[0], self.hidden, dtype=x.dtype)
        outs = []
        for t in range(x.shape[1]):
            h = torch.tanh(self.ih(x[:, t]) + self.hh(h))
            outs.append(h)
        return torch.stack(outs, dim=1)


def get_inputs():
    return [torch.randn(2, 3, 8)]


def get_init_inputs():
    return [8, 16]
