"""Computes the spatial mean as a sum over H and W divided by H*W instead of calling mean."""
# decomposition: convbn
# kernel: mean_4x16x16x16_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, h):
        return h.sum(dim=(2, 3)) / (h.shape[2] * h.shape[3])
