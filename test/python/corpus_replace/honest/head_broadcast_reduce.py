"""Computes the tiny 16->10 head without a GEMM: a broadcast product of inputs and weights summed over the 16 input features, plus the bias."""
# decomposition: convbn
# kernel: linear_16x10_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(16, 10)

    def forward(self, mean):
        prod = mean.unsqueeze(1) * self.linear.weight.unsqueeze(0)   # [N, 10, 16]
        return prod.sum(dim=-1) + self.linear.bias
