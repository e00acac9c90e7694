"""Computes the 512->16 linear layer split-K: two half-depth matmuls (input features 0-255 and 256-511) summed, plus the bias."""
# decomposition: mlp
# kernel: linear_512x16_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(512, 16)

    def forward(self, h):
        w = self.linear.weight
        half = w.shape[1] // 2
        lo = torch.mm(h[:, :half], w[:, :half].t())
        hi = torch.mm(h[:, half:], w[:, half:].t())
        return lo + hi + self.linear.bias
