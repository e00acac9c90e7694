"""Refactored tiny tanh RNN."""

import torch
import torch.nn as nn
from children.linear import Model as Linear
from children.tanh import Model as Tanh


class RefactoredModel(nn.Module):
    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.hidden = hidden
        self.ih = Linear(dim, hidden)
        self.hh = Linear(hidden, hidden)
        self.act = Tanh()

    def forward(self, x):
        h = torch.zeros(x.shape[0], self.hidden, dtype=x.dtype, device=x.device)
        outs = []
        steps = x.size(1)
        for t in range(steps):
            h = self.act(self.ih(x[:, t]) + self.hh(h))
            outs.append(h)
        return torch.stack(outs, dim=1)


def get_inputs():
    return [torch.randn(2, 3, 8)]


def get_init_inputs():
    return [8, 16]
