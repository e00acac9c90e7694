"""Computes the 256->512 linear layer as an explicit `x @ W.T + b` (a matmul and a separate bias add) instead of nn.Linear's fused addmm."""
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
        return x @ self.linear.weight.T + self.linear.bias
