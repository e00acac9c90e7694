"""Computes the spatial mean as a matrix-vector product of the flattened H*W pixels with a vector of 1/(H*W)."""
# decomposition: convbn
# kernel: mean_4x16x16x16_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, h):
        n, c, hh, ww = h.shape
        weights = torch.full((hh * ww,), 1.0 / (hh * ww), dtype=h.dtype, device=h.device)
        return torch.mv(h.reshape(n * c, hh * ww), weights).view(n, c)
