"""Kernel: Softmax over the last dim."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.softmax(x, dim=self.dim)


def get_inputs():
    return [torch.randn(2, 16)]


def get_init_inputs():
    return [-1]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    out = model(*get_inputs())
    print("PASS" if out is not None else "FAIL")
