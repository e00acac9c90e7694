"""Computes exact GELU from its erf formula 0.5*x*(1+erf(x/sqrt(2))) in fp32 instead of calling F.gelu."""
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
        return 0.5 * mul * (1.0 + torch.erf(mul * _SQRT1_2))
