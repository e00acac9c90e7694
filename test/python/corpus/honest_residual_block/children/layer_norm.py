"""Kernel: LayerNorm."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    out = model(*get_inputs())
    print("PASS" if out is not None else "FAIL")
