"""Adds by cloning the first operand into a temporary of its own and adding the second into it in place."""
# decomposition: mlp
# kernel: add_fp32
# expect: PASS

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, fc2_2, mul):
        out = fc2_2.clone()
        out.add_(mul)
        return out
