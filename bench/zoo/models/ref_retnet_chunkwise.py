"""RetNet retention (Sun et al. 2023), chunkwise recurrent form with per-head decay gamma = 1 - 2^(-5-h):
parallel retention inside each chunk, a recurrent state across chunks. Written as a small multi-scale
retention layer (q/k/v/g projections, xPos-free, group norm, swish gate, output projection).

Input: x (batch, seq, d_model). Output: (batch, seq, d_model).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 96
d_model = 128
num_heads = 4
chunk_size = 32


class Model(nn.Module):
    def __init__(self, d_model, num_heads, chunk_size):
        super().__init__()
        self.h = num_heads
        self.dk = d_model // num_heads
        self.chunk = chunk_size
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.g_proj = nn.Linear(d_model, d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)
        self.group_norm = nn.GroupNorm(num_heads, d_model, affine=False)
        gamma = 1 - 2 ** (-5 - torch.arange(num_heads, dtype=torch.float32))
        self.register_buffer("log_gamma", gamma.log())

    def forward(self, x):
        B, T, D = x.shape
        H, K, C = self.h, self.dk, self.chunk
        q = self.q_proj(x).view(B, T, H, K).transpose(1, 2) * K ** -0.5
        k = self.k_proj(x).view(B, T, H, K).transpose(1, 2)
        v = self.v_proj(x).view(B, T, H, K).transpose(1, 2)
        idx = torch.arange(C, device=x.device, dtype=x.dtype)
        lg = self.log_gamma.view(H, 1, 1)
        decay = torch.exp(lg * (idx[:, None] - idx[None, :])).masked_fill(idx[:, None] < idx[None, :], 0)
        q_decay = torch.exp(lg * (idx + 1)[:, None])          # (H, C, 1)
        k_decay = torch.exp(lg * (C - 1 - idx)[:, None])      # (H, C, 1)
        chunk_decay = torch.exp(lg * C)                         # (H, 1, 1)
        state = x.new_zeros(B, H, K, K)
        outs = []
        for s in range(0, T, C):
            qc, kc, vc = q[:, :, s:s + C], k[:, :, s:s + C], v[:, :, s:s + C]
            inner = ((qc @ kc.transpose(-1, -2)) * decay) @ vc
            cross = (qc * q_decay) @ state
            outs.append(inner + cross)
            state = chunk_decay * state + (kc * k_decay).transpose(-1, -2) @ vc
        o = torch.cat(outs, dim=2).transpose(1, 2).reshape(B * T, D)
        o = self.group_norm(o).view(B, T, D)
        return self.out_proj(F.silu(self.g_proj(x)) * o)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads, chunk_size]
