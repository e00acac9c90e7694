"""Refactored tiny self-attention: only children and head plumbing."""

import torch
import torch.nn as nn
from children.bmm import Model as BMM
from children.linear import Model as Linear
from children.scale import Model as Scale
from children.softmax import Model as Softmax


class RefactoredModel(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = Linear(dim, 3 * dim)
        self.scores = BMM()
        self.scale = Scale(1.0 / (dim // heads) ** 0.5)
        self.softmax = Softmax(-1)
        self.mix = BMM()

    def _split_heads(self, t, b, n):
        return t.view(b, n, self.heads, -1).transpose(1, 2)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (self._split_heads(z, b, t) for z in (q, k, v))
        att = self.softmax(self.scale(self.scores(q, k.transpose(-2, -1))))
        y = self.mix(att, v)
        return y.transpose(1, 2).contiguous().view(b, t, d)


def get_inputs():
    return [torch.randn(2, 4, 8)]


def get_init_inputs():
    return [8, 2]
