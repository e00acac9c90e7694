"""Computes the 256->512 linear layer in row blocks of 32 (one addmm per block of the batch) and concatenates the blocks."""
# decomposition: mlp
# kernel: linear_256x512_fp32
# expect: PASS

import torch
import torch.nn as nn

_BLOCK = 32


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(256, 512)

    def forward(self, x):
        wt = self.linear.weight.t()
        bias = self.linear.bias
        blocks = [torch.addmm(bias, x[i:i + _BLOCK], wt) for i in range(0, x.shape[0], _BLOCK)]
        return torch.cat(blocks, dim=0)
