"""Computes the 256->512 linear layer with torch.einsum over the weight's input dimension, then adds the bias."""
# decomposition: mlp
# kernel: linear_256x512_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(256, 512)

    def forward(self, x):
        return torch.einsum("bk,nk->bn", x, self.linear.weight) + self.linear.bias
