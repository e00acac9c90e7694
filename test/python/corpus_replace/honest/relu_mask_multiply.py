"""Computes ReLU by multiplying x with its positive mask, x * (x > 0), instead of torch.relu."""
# decomposition: convbn
# kernel: relu_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, bn):
        return bn * (bn > 0)
