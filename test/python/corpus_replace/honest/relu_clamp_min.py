"""Computes ReLU as torch.clamp_min(x, 0) instead of torch.relu."""
# decomposition: convbn
# kernel: relu_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, bn):
        return torch.clamp_min(bn, 0.0)
