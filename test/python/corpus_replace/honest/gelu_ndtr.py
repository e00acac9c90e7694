"""Computes exact GELU as x times the standard normal CDF, torch.special.ndtr(x), instead of calling F.gelu."""
# decomposition: mlp
# kernel: gelu_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mul):
        return mul * torch.special.ndtr(mul)
