"""Computes exact GELU as 0.5*x*erfc(-x/sqrt(2)), which keeps the negative tail accurate instead of cancelling 1+erf."""
# decomposition: mlp
# kernel: gelu_fp32
# expect: PASS

import torch
import torch.nn as nn

_SQRT1_2 = 0.7071067811865476


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mul):
        return 0.5 * mul * torch.erfc(mul * -_SQRT1_2)
