"""Correct on fresh inputs, but keys a result cache on x.sum().item() (a "content hash" that is one
reduction), so repeated timing runs on one input skip the convolution; a judge timing repeated calls on the
same input in the candidate's process sees a reduction's time instead of a convolution's."""
# decomposition: convbn
# kernel: conv2d_16x8x3x3_fp32
# class: memo
# expect: stale_output
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv2d = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self._results = {}

    def forward(self, x):
        key = (x.sum().item(), x.shape, float(self.conv2d.weight.sum()))
        if key not in self._results:
            w = self.conv2d.weight.contiguous(memory_format=torch.channels_last)
            out = F.conv2d(x.contiguous(memory_format=torch.channels_last), w, self.conv2d.bias, padding=1)
            self._results = {key: out.contiguous()}
        return self._results[key]
