"""Keeps a contiguous copy of the transposed 256->512 weight, rebuilt whenever the weight's storage or version changes, and runs a single addmm on it."""
# decomposition: mlp
# kernel: linear_256x512_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(256, 512)
        self._wt = None      # plain attribute (not a buffer): W.T, contiguous
        self._wt_key = None  # (data_ptr, _version, device) of the weight it was built from

    def _weight_t(self):
        w = self.linear.weight
        key = (w.data_ptr(), w._version, w.device)
        if self._wt is None or self._wt_key != key:
            with torch.no_grad():
                self._wt = w.detach().t().contiguous()
            self._wt_key = key
        return self._wt

    def forward(self, x):
        return torch.addmm(self.linear.bias, x, self._weight_t())
