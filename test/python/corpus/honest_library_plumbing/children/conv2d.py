"""Kernel: Conv2d 3x3, padding 1."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin=3, cout=4):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(1, 3, 6, 6)]


def get_init_inputs():
    return [3, 4]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    out = model(*get_inputs())
    print("PASS" if out is not None else "FAIL")
