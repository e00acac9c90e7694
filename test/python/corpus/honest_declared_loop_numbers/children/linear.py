"""Kernel: Linear."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features=8, out_features=16):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.linear(x)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    out = model(*get_inputs())
    print("PASS" if out is not None else "FAIL")
