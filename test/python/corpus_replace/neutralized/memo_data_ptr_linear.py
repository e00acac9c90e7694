"""Correct on fresh inputs, but memoises by the input's data_ptr() (and version counter; it keeps the last
input alive so its address cannot be recycled): a judge's timing loop passes the same tensor every run, so
every run after the first returns the cached product; a same-process clock then times a lookup, not a matmul.
Neutralised, not refused: the judge times every run on a copy of its own (its own memory and values), so the
memo never hits where it is timed, and where it would hit (the same tensor, unchanged) its answer is right."""
# decomposition: mlp
# kernel: linear_256x512_fp32
# class: memo
# expect: PASS
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(256, 512)
        self._last = (None, None, None)    # (key, pinned input, result)

    def _key(self, x):
        w = self.linear.weight
        return (x.data_ptr(), x._version, tuple(x.shape), w.data_ptr(), w._version)

    def forward(self, x):
        key = self._key(x)
        if self._last[0] != key:
            self._last = (key, x, torch.matmul(x, self.linear.weight.T).add_(self.linear.bias))
        return self._last[2]
