"""Flash-Decoding (Dao, Haziza, Massa, Sizov 2023, "Flash-Decoding for long-context inference"; the split-KV path
of FlashAttention's flash_attn_with_kvcache), written in plain PyTorch as the reference a kernel author checks a
split-K decode kernel against: one new query token per sequence attends to a KV cache whose length varies per
sample, with grouped-query heads (8 query heads, 2 KV heads: query head h reads KV head h // 4).

1. Split: the cache's 256 positions are cut into 4 chunks of 64; a Python loop processes one chunk at a time
   (in the kernel, each chunk is a separate thread block, in parallel).
2. Per chunk c: scores s = q . k / sqrt(head_dim), positions at or beyond the sample's cache_seqlens masked
   out; chunk max m_c, p = exp(s - m_c), l_c = sum p, the chunk-normalized partial output
   o_c = (p @ v) / l_c and its log-sum-exp lse_c = m_c + log l_c. A chunk with no valid position (the sample's
   cache ends before it) gives o_c = 0 and lse_c = -inf instead of NaNs.
3. Combine (the kernel's second, reduction pass): lse = logsumexp_c lse_c and o = sum_c exp(lse_c - lse) o_c,
   which equals softmax attention over all the valid positions.
The split-K part is a kernel-level reference: no q / k / v projections, the caches are inputs; a learned output
projection (nn.Linear(8 * 32, 256), PyTorch default init) maps the concatenated heads so the model has weights.
Softmax statistics in float32.
Sizes: batch 2, 8 query heads, 2 KV heads, head dim 32, cache 256 positions in 4 splits; cache_seqlens
(256, 200): sample 1's last chunk holds 8 valid positions.

Inputs: q (batch, 1, 8, 32), k_cache and v_cache (batch, 256, 2, 32), cache_seqlens (batch,) int64.
Output: (batch, 1, 8, 32).
"""
import torch
from torch import nn

batch_size = 2
num_heads = 8
num_kv_heads = 2
head_dim = 32
cache_len = 256
num_splits = 4
short_len = 200  # cache length of the odd-indexed samples


class Model(nn.Module):
    def __init__(self, num_heads, head_dim, num_splits):
        super().__init__()
        self.num_splits = num_splits
        self.o_proj = nn.Linear(num_heads * head_dim, 256)

    def forward(self, q, k_cache, v_cache, cache_seqlens):
        B, Tq, H, D = q.shape
        L, Hkv = k_cache.shape[1], k_cache.shape[2]
        G = H // Hkv
        qg = q.view(B, Tq, Hkv, G, D).float() * D ** -0.5
        chunk = (L + self.num_splits - 1) // self.num_splits
        outs, lses = [], []
        for start in range(0, L, chunk):  # 1. split the KV sequence
            end = min(start + chunk, L)
            k = k_cache[:, start:end].float()                                       # (B, n, Hkv, D)
            v = v_cache[:, start:end].float()
            s = torch.einsum("bqhgd,bnhd->bhgqn", qg, k)                           # (B, Hkv, G, Tq, n)
            pos = torch.arange(start, end, device=q.device)
            valid = pos[None, :] < cache_seqlens[:, None]                           # (B, n)
            s = s.masked_fill(~valid[:, None, None, None, :], float("-inf"))
            # 2. partial softmax of this chunk: max, sum, normalized output, log-sum-exp
            m = s.amax(dim=-1, keepdim=True)
            m = torch.where(torch.isinf(m), torch.zeros_like(m), m)                 # empty chunk: no shift
            p = torch.exp(s - m)
            l_sum = p.sum(dim=-1, keepdim=True)
            o = torch.einsum("bhgqn,bnhd->bhgqd", p, v) / l_sum.clamp(min=torch.finfo(p.dtype).tiny)
            lse = torch.where(l_sum > 0, m + torch.log(l_sum), torch.full_like(m, float("-inf")))
            outs.append(o)
            lses.append(lse)
        # 3. combine the partials, each weighted by exp(lse_c - lse)
        lse_all = torch.stack(lses)                                                # (S, B, Hkv, G, Tq, 1)
        lse_total = torch.logsumexp(lse_all, dim=0)
        weights = torch.exp(lse_all - lse_total)
        o = (weights * torch.stack(outs)).sum(dim=0)                               # (B, Hkv, G, Tq, D)
        o = o.permute(0, 3, 1, 2, 4).reshape(B, Tq, H * D).to(q.dtype)
        return self.o_proj(o).view(B, Tq, H, D)


def get_inputs():
    q = torch.randn(batch_size, 1, num_heads, head_dim)
    k_cache = torch.randn(batch_size, cache_len, num_kv_heads, head_dim)
    v_cache = torch.randn(batch_size, cache_len, num_kv_heads, head_dim)
    cache_seqlens = torch.full((batch_size,), cache_len, dtype=torch.int64)
    cache_seqlens[1::2] = short_len
    return [q, k_cache, v_cache, cache_seqlens]


def get_init_inputs():
    return [num_heads, head_dim, num_splits]
