"""Kernel: multiply by a constant."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, factor=0.5):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


def get_inputs():
    return [torch.randn(2, 16)]


def get_init_inputs():
    return [0.5]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    out = model(*get_inputs())
    print("PASS" if out is not None else "FAIL")
