"""Folds the eval-mode BatchNorm into a cached per-channel scale/shift, recomputed whenever a stored copy of the four BatchNorm tensors no longer equals them."""
# decomposition: convbn
# kernel: batch_norm2d_16_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.batch_norm2d = nn.BatchNorm2d(16)
        self._seen = None    # plain attributes: copies of (weight, bias, running_mean, running_var) and eps
        self._scale = None
        self._shift = None

    def _refresh(self):
        bn = self.batch_norm2d
        current = (bn.weight, bn.bias, bn.running_mean, bn.running_var)
        if (self._seen is not None and self._seen[1] == bn.eps
                and all(a.device == b.device and torch.equal(a, b) for a, b in zip(self._seen[0], current))):
            return
        with torch.no_grad():
            inv_std = torch.rsqrt(bn.running_var + bn.eps)
            scale = bn.weight * inv_std
            self._scale = scale.view(-1, 1, 1).clone()
            self._shift = (bn.bias - bn.running_mean * scale).view(-1, 1, 1).clone()
            self._seen = (tuple(t.detach().clone() for t in current), bn.eps)

    def forward(self, conv):
        self._refresh()
        return conv * self._scale + self._shift
