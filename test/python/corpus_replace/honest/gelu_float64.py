"""Computes exact GELU with the erf formula in float64 and casts the result back to fp32."""
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
        x = mul.double()
        return (0.5 * x * (1.0 + torch.erf(x * _SQRT1_2))).to(mul.dtype)
