"""Based (Arora et al. 2024, "Simple linear attention language models balance the recall-throughput tradeoff"):
causal linear attention with the 2nd-order Taylor feature map
    phi(x) = [1, x / d^(1/4), (x outer x) / sqrt(2 d)]    (so phi(q).phi(k) = 1 + q.k/sqrt(d) + (q.k)^2 / (2d)),
in chunked form: causal (phi(q) phi(k)^T) inside a chunk plus a running (1 + d + d^2) x d_v state and normaliser
carried across chunks in a Python loop, output normalised by the running denominator. Summed with a sliding-window
softmax attention branch (window 64, its own q/k/v projections; a full causal-banded mask as a naive reference
writes it), then the output projection. (Based interleaves the two mixers as separate layers; here one layer
holds both.)

Shrunk: d_model 128, 4 heads, feature dim 16 (as in Based), head dim 32, sequence 256, chunks of 64.
Input: x (batch, seq, d_model). Output: (batch, seq, d_model).
"""
import math

import torch
from torch import nn

batch_size = 2
seq_len = 256
d_model = 128
num_heads = 4
feature_dim = 16
window_size = 64
chunk_size = 64


class Model(nn.Module):
    def __init__(self, d_model, num_heads, feature_dim, window_size, chunk_size):
        super().__init__()
        self.h = num_heads
        self.f = feature_dim
        self.dh = d_model // num_heads
        self.window = window_size
        self.chunk = chunk_size
        self.eps = 1e-12
        self.q_proj = nn.Linear(d_model, num_heads * feature_dim, bias=False)
        self.k_proj = nn.Linear(d_model, num_heads * feature_dim, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.swa_qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def taylor(self, x):
        d = x.shape[-1]
        x2 = (x.unsqueeze(-1) * x.unsqueeze(-2)).flatten(-2) / math.sqrt(2 * d)
        return torch.cat([torch.ones_like(x[..., :1]), x / d ** 0.25, x2], dim=-1)

    def forward(self, x):
        B, T, D = x.shape
        H, Fd, Dh, C = self.h, self.f, self.dh, self.chunk
        # linear attention branch (Taylor features), chunked with a running state
        q = self.taylor(self.q_proj(x).view(B, T, H, Fd).transpose(1, 2))   # (B, H, T, 1 + F + F^2)
        k = self.taylor(self.k_proj(x).view(B, T, H, Fd).transpose(1, 2))
        v = self.v_proj(x).view(B, T, H, Dh).transpose(1, 2)
        mask = torch.triu(torch.ones(C, C, dtype=torch.bool, device=x.device), diagonal=1)
        kv_state = x.new_zeros(B, H, q.shape[-1], Dh)
        k_state = x.new_zeros(B, H, 1, q.shape[-1])
        outs = []
        for s in range(0, T, C):
            qc, kc, vc = q[:, :, s:s + C], k[:, :, s:s + C], v[:, :, s:s + C]
            a = (qc @ kc.transpose(-1, -2)).masked_fill(mask, 0)
            num = a @ vc + qc @ kv_state
            den = a.sum(-1, keepdim=True) + qc @ k_state.transpose(-1, -2)
            outs.append(num / (den + self.eps))
            kv_state = kv_state + kc.transpose(-1, -2) @ vc
            k_state = k_state + kc.sum(-2, keepdim=True)
        y_lin = torch.cat(outs, dim=2)

        # sliding-window softmax attention branch
        sq, sk, sv = self.swa_qkv(x).view(B, T, 3, H, Dh).permute(2, 0, 3, 1, 4)
        i = torch.arange(T, device=x.device)
        band = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < self.window)
        scores = (sq @ sk.transpose(-1, -2)) * Dh ** -0.5
        y_swa = scores.masked_fill(~band, float("-inf")).softmax(-1) @ sv

        y = (y_lin + y_swa).transpose(1, 2).reshape(B, T, D)
        return self.o_proj(y)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads, feature_dim, window_size, chunk_size]
