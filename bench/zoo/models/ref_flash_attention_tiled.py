"""FlashAttention forward (Dao et al. 2022, "FlashAttention: Fast and Memory-Efficient Exact Attention with
IO-Awareness"; loop order of FlashAttention-2, Dao 2023), causal, written in plain PyTorch as the tiled reference
a kernel author checks a fused kernel against. Queries are split into blocks of block_m rows; for each query block
a Python loop walks the key/value blocks of block_n columns up to the diagonal (blocks above it are skipped) and
keeps the online-softmax state: the running row max m, the running denominator row_sum and the unnormalised
output accumulator, both rescaled by exp(m_old - m_new) whenever the max grows. Only the blocks that cross the
diagonal are masked. The output is acc / row_sum; the log-sum-exp m + log(row_sum) is returned too (what the
backward pass keeps).

Sizes: batch 2, 4 heads, 128 tokens, head dim 32, 32 x 32 tiles (4 query blocks, 10 tile steps in all).
Inputs: q, k, v (batch, heads, seq, head_dim), float32. Output: o (batch, heads, seq, head_dim) and
lse (batch, heads, seq).
"""
import torch
from torch import nn

batch_size = 2
heads = 4
seq_len = 128
head_dim = 32
block_m = 32  # query tile
block_n = 32  # key/value tile


class Model(nn.Module):
    def __init__(self, block_m, block_n):
        super().__init__()
        self.block_m = block_m
        self.block_n = block_n

    def forward(self, q, k, v):
        B, H, T, D = q.shape
        BM, BN = self.block_m, self.block_n
        scale = D ** -0.5
        pos = torch.arange(T, device=q.device)
        outs, lses = [], []
        for qs in range(0, T, BM):
            qe = min(qs + BM, T)
            qi = q[:, :, qs:qe] * scale
            m = q.new_full((B, H, qe - qs, 1), float("-inf"))
            row_sum = q.new_zeros(B, H, qe - qs, 1)
            acc = q.new_zeros(B, H, qe - qs, D)
            for ks in range(0, qe, BN):           # causal: key blocks up to the diagonal only
                ke = min(ks + BN, T)
                s = qi @ k[:, :, ks:ke].transpose(-1, -2)
                if ke > qs + 1:                   # the block crosses the diagonal: mask keys after the query
                    s = s.masked_fill(pos[ks:ke][None, :] > pos[qs:qe][:, None], float("-inf"))
                m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
                p = torch.exp(s - m_new)
                alpha = torch.exp(m - m_new)
                row_sum = row_sum * alpha + p.sum(dim=-1, keepdim=True)
                acc = acc * alpha + p @ v[:, :, ks:ke]
                m = m_new
            outs.append(acc / row_sum)
            lses.append((m + torch.log(row_sum)).squeeze(-1))
        return torch.cat(outs, dim=2), torch.cat(lses, dim=2)


def get_inputs():
    q = torch.randn(batch_size, heads, seq_len, head_dim)
    k = torch.randn(batch_size, heads, seq_len, head_dim)
    v = torch.randn(batch_size, heads, seq_len, head_dim)
    return [q, k, v]


def get_init_inputs():
    return [block_m, block_n]
