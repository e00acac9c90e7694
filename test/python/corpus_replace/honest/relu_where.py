"""Computes ReLU as a select, torch.where(x > 0, x, 0), instead of torch.relu."""
# decomposition: convbn
# kernel: relu_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, bn):
        return torch.where(bn > 0, bn, 0.0)
