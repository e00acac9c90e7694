"""A generic activation child: builds the module class it is given (timm's act_layer=)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, act_layer=nn.ReLU):
        super().__init__()
        self.act = act_layer()

    def forward(self, x):
        return self.act(x)


def get_inputs():
    return [torch.randn(2, 16)]


def get_init_inputs():
    return []


if __name__ == "__main__":
    model = Model(*get_init_inputs())
    out = model(*get_inputs())
    print("PASS" if out is not None else "FAIL")
