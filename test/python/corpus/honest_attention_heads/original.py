"""Tiny self-attention (2 heads, no output projection)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5), dim=-1)
        y = torch.matmul(att, v)
        return y.transpose(1, 2).contiguous().view(b, t, d)


def get_inputs():
    return [torch.randn(2, 4, 8)]


def get_init_inputs():
    return [8, 2]
