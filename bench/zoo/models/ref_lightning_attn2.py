"""Lightning Attention-2 (Qin et al. 2024, "Lightning Attention-2: A Free Lunch for Handling Unlimited Sequence
Lengths in Large Language Models"), the blockwise reference of causal linear attention with a per-head decay
lambda = exp(-s_h) (ALiBi-style slopes s_h, as in TransNormerLLM):
    o_t = sum_{j <= t} lambda^(t - j) (q_t . k_j) v_j.
Per block of C tokens: intra-block masked attention [(Q K^T) * M] V with M_ij = lambda^(i - j) (i >= j), plus
the inter-block term Lambda Q KV (Lambda = diag(lambda^1..lambda^C)); the (d x d) KV state per head is carried
across blocks in a Python loop, KV <- lambda^C KV + (lambda^(C - i) K)^T V (i = 1..C). All decay exponents are
non-negative, so nothing overflows (no lambda^-i factors).

Inputs: q, k, v (batch, heads, seq, dim), float32, seq a multiple of the block size.
Output: o (batch, heads, seq, dim).
"""
import torch
from torch import nn

batch_size = 2
heads = 4
seq_len = 256
head_dim = 64
block_size = 64


def alibi_slopes(n):
    start = 2 ** (-8 / n)
    return torch.tensor([start ** (i + 1) for i in range(n)], dtype=torch.float32)


class Model(nn.Module):
    def __init__(self, heads, block_size):
        super().__init__()
        self.block = block_size
        self.register_buffer("slopes", alibi_slopes(heads).view(heads, 1, 1))   # s_h; lambda_h = exp(-s_h)

    def forward(self, q, k, v):
        Bsz, H, T, Dk = q.shape
        Dv = v.shape[-1]
        C = self.block
        s = self.slopes
        idx = torch.arange(C, dtype=q.dtype, device=q.device)
        diff = idx[:, None] - idx[None, :]
        mask = torch.exp(-s * diff.masked_fill(diff < 0, float("inf")))   # (H, C, C): lambda^(i-j), 0 above diagonal
        q_decay = torch.exp(-s * (idx + 1)[:, None])                       # (H, C, 1): lambda^(i+1)
        k_decay = torch.exp(-s * (C - 1 - idx)[:, None])                   # (H, C, 1): lambda^(C-1-i)
        block_decay = torch.exp(-s * C)                                     # (H, 1, 1): lambda^C
        kv = q.new_zeros(Bsz, H, Dk, Dv)
        outs = []
        for i in range(0, T, C):
            qi, ki, vi = q[:, :, i:i + C], k[:, :, i:i + C], v[:, :, i:i + C]
            intra = ((qi @ ki.transpose(-1, -2)) * mask) @ vi
            inter = (qi * q_decay) @ kv
            outs.append(intra + inter)
            kv = block_decay * kv + (ki * k_decay).transpose(-1, -2) @ vi
        return torch.cat(outs, dim=2)


def get_inputs():
    q = torch.randn(batch_size, heads, seq_len, head_dim)
    k = torch.randn(batch_size, heads, seq_len, head_dim)
    v = torch.randn(batch_size, heads, seq_len, head_dim)
    return [q, k, v]


def get_init_inputs():
    return [heads, block_size]
