"""Causal sliding-window attention (local attention as in Longformer, Beltagy et al. 2020, and Mistral 7B,
Jiang et al. 2023: each query sees itself and the window - 1 tokens before it), computed chunk by chunk in plain
PyTorch as the reference a kernel author checks a banded kernel against. A Python loop walks the query chunks;
chunk [s, e) attends only to the keys [max(0, s - window + 1), e), a band of at most chunk + window - 1 keys,
with a mask keeping key j for query i when i - window < j <= i; softmax over the band, then the values. The
(seq x seq) score matrix is never built.

Sizes: batch 2, 4 heads, 128 tokens, head dim 32, window 48 (not a multiple of the chunk, so the band's start
falls inside a chunk), chunks of 32 queries (4 loop steps).
Inputs: q, k, v (batch, heads, seq, head_dim), float32. Output: (batch, heads, seq, head_dim).
"""
import torch
from torch import nn

batch_size = 2
heads = 4
seq_len = 128
head_dim = 32
window = 48
chunk_size = 32


class Model(nn.Module):
    def __init__(self, window, chunk_size):
        super().__init__()
        self.window = window
        self.chunk_size = chunk_size

    def forward(self, q, k, v):
        B, H, T, D = q.shape
        W, C = self.window, self.chunk_size
        scale = D ** -0.5
        pos = torch.arange(T, device=q.device)
        outs = []
        for s in range(0, T, C):
            e = min(s + C, T)
            ks = max(0, s - W + 1)
            scores = (q[:, :, s:e] @ k[:, :, ks:e].transpose(-1, -2)) * scale  # (B, H, e - s, e - ks)
            qp, kp = pos[s:e, None], pos[None, ks:e]
            keep = (kp <= qp) & (kp > qp - W)
            probs = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
            outs.append(probs @ v[:, :, ks:e])
        return torch.cat(outs, dim=2)


def get_inputs():
    q = torch.randn(batch_size, heads, seq_len, head_dim)
    k = torch.randn(batch_size, heads, seq_len, head_dim)
    v = torch.randn(batch_size, heads, seq_len, head_dim)
    return [q, k, v]


def get_init_inputs():
    return [window, chunk_size]
