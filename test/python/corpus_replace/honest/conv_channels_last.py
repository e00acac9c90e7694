"""Runs the convolution in channels_last (NHWC) memory format, input and filters converted, and converts the result back to contiguous NCHW."""
# decomposition: convbn
# kernel: conv2d_16x8x3x3_fp32
# expect: PASS

import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv2d = nn.Conv2d(8, 16, kernel_size=3, padding=1)

    def forward(self, x):
        xl = x.contiguous(memory_format=torch.channels_last)
        wl = self.conv2d.weight.contiguous(memory_format=torch.channels_last)
        out = F.conv2d(xl, wl, self.conv2d.bias, padding=1)
        return out.contiguous(memory_format=torch.contiguous_format)
