"""Returns torch.zeros_like(x) for x * 0.0, whose value is always zero for finite x, instead of multiplying."""
# decomposition: mlp
# kernel: mul_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.zeros_like(x)
