"""Scales by 50 with torch.mul writing into an output buffer it allocates itself (out=) instead of a plain multiply."""
# decomposition: mlp
# kernel: mul_fp32_v2
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, fc1_2):
        out = torch.empty_like(fc1_2)
        torch.mul(fc1_2, 50.0, out=out)
        return out
