"""Kernel: ReLU (or tanh), configured with plain data only."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kind="relu", inplace=False, eps=1e-5, shape=(-1, 16), dtype=torch.float32):
        super().__init__()
        self.kind, self.inplace, self.eps = kind, inplace, eps
        self.shape, self.dtype = shape, dtype

    def forward(self, x):
        y = torch.relu(x) if self.kind == "relu" else torch.tanh(x)
        return y.reshape(self.shape).to(self.dtype)


def get_inputs():
    return [torch.randn(2, 16)]


def get_init_inputs():
    return ["relu", False, 1e-5, (-1, 16), torch.float32]


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    out = model(*get_inputs())
    print("PASS" if out is not None else "FAIL")
