"""Computes the spatial mean as a global average pool, F.adaptive_avg_pool2d(h, 1), flattened to [N, C]."""
# decomposition: convbn
# kernel: mean_4x16x16x16_fp32
# expect: PASS

import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, h):
        return F.adaptive_avg_pool2d(h, 1).flatten(1)
