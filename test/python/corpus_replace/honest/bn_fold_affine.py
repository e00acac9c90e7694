"""Applies the eval-mode BatchNorm as a folded per-channel affine x*scale + shift, with scale = weight/sqrt(running_var+eps) and shift = bias - running_mean*scale."""
# decomposition: convbn
# kernel: batch_norm2d_16_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.batch_norm2d = nn.BatchNorm2d(16)

    def forward(self, conv):
        bn = self.batch_norm2d
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        shift = bn.bias - bn.running_mean * scale
        return conv * scale[:, None, None] + shift[:, None, None]
