"""Scales by 50 as x + x*49 (a multiply and an add) instead of a single multiply."""
# decomposition: mlp
# kernel: mul_fp32_v2
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, fc1_2):
        return fc1_2 + fc1_2 * 49.0
