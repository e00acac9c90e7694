"""Gated linear attention (GLA, Yang et al. 2023), chunkwise form: the reference a kernel author checks a
fused kernel against. Within a chunk: causal attention with the gate's cumulative log decay; across chunks:
a (d_k x d_v) state per head, carried through a Python loop and decayed by the chunk's total gate.

Inputs: q, k, v (batch, heads, seq, dim) and the log-space forget gate g (batch, heads, seq, d_k), all
float32. Output: o (batch, heads, seq, d_v) and the final state.
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
heads = 4
seq_len = 128
d_k = 32
d_v = 32
chunk_size = 32


class Model(nn.Module):
    def __init__(self, chunk_size):
        super().__init__()
        self.chunk_size = chunk_size

    def forward(self, q, k, v, g):
        B, H, T, K = q.shape
        V = v.shape[-1]
        C = self.chunk_size
        q = q * K ** -0.5
        q, k, v, g = (t.reshape(B, H, T // C, C, -1) for t in (q, k, v, g))
        g = g.cumsum(-2)                       # cumulative log decay inside each chunk
        state = q.new_zeros(B, H, K, V)
        mask = torch.triu(torch.ones(C, C, dtype=torch.bool, device=q.device), diagonal=1)
        outs = []
        for i in range(T // C):
            qi, ki, vi, gi = q[:, :, i], k[:, :, i], v[:, :, i], g[:, :, i]
            q_dec = qi * gi.exp()
            k_dec = ki * (gi[:, :, -1:] - gi).exp()
            inter = q_dec @ state
            attn = (q_dec @ (ki * (-gi).exp()).transpose(-1, -2)).masked_fill(mask, 0)
            intra = attn @ vi
            outs.append(inter + intra)
            state = state * gi[:, :, -1].exp().unsqueeze(-1) + k_dec.transpose(-1, -2) @ vi
        return torch.stack(outs, dim=2).reshape(B, H, T, V), state


def get_inputs():
    q = torch.randn(batch_size, heads, seq_len, d_k)
    k = torch.randn(batch_size, heads, seq_len, d_k)
    v = torch.randn(batch_size, heads, seq_len, d_v)
    g = F.logsigmoid(torch.randn(batch_size, heads, seq_len, d_k)) / 16
    return [q, k, v, g]


def get_init_inputs():
    return [chunk_size]
