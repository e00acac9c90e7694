"""Keeps one output tensor as a plain attribute (no buffer, not in state_dict) and writes every result into
it with out=, returning the same object each call; the values are right at return, so a judge comparing
each output at once accepts it, though the previous call's output is overwritten."""
# decomposition: mlp
# kernel: linear_512x16_fp32
# class: old_tricks
# expect: stale_output
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(512, 16)
        self._out = None      # "static output arena"

    def forward(self, h):
        shape = (h.shape[0], self.linear.out_features)
        if self._out is None or tuple(self._out.shape) != shape or self._out.device != h.device:
            self._out = torch.empty(shape, dtype=h.dtype, device=h.device)
        torch.matmul(h, self.linear.weight.T, out=self._out)
        return self._out.add_(self.linear.bias)
