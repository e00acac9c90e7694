"""Computes the 16->10 head with torch.matmul against the transposed weight (mT) and a separate bias add."""
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
        return torch.matmul(mean, self.linear.weight.mT) + self.linear.bias
