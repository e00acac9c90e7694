"""Multi-head latent attention (MLA) decode step with absorbed up-projections (DeepSeek-AI 2024, "DeepSeek-V2: A
Strong, Economical, and Efficient Mixture-of-Experts Language Model", sec. 2.1; the "absorb" path of the DeepSeek-V3
reference inference code, inference/model.py MLA.forward with attn_impl="absorb"), in plain PyTorch: the KV cache
holds only the RMS-normalised compressed latent c_kv (kv_lora_rank wide) and the shared decoupled RoPE key k_pe per
token, never per-head keys or values. One decode token per sequence:
    q = W_qb RMSNorm(W_qa x)               low-rank query (q_lora_rank), split per head into q_nope | q_pe
    q_pe <- RoPE(q_pe, pos)                 complex (interleaved-pair) rotary embedding at the token's position
    [c_kv | k_pe] = W_kva x;  c_kv <- RMSNorm(c_kv);  k_pe <- RoPE(k_pe, pos)
    write c_kv, k_pe into slot pos of the latent caches (out of place, per-sequence positions)
    W_kvb viewed as (heads, nope + v, kv_lora_rank): W_UK = [:, :nope], W_UV = [:, nope:]
    q_lat  = einsum("bhd,hdc->bhc", q_nope, W_UK)          W_UK absorbed into the query
    scores = (q_lat . c_kv_t + q_pe . k_pe_t) * softmax_scale   over the latent cache: no per-head keys exist
    p = softmax(scores masked to t <= pos) in float32
    o_lat  = einsum("bht,btc->bhc", p, c_kv)               attention in latent space
    o      = einsum("bhc,hdc->bhd", o_lat, W_UV)            W_UV absorbed after the attention
    y = W_o o
softmax_scale = (qk_nope + qk_rope)^-0.5 (no YaRN: the cache is shorter than the original context). Equivalent to
materialising k = [W_UK c_kv | k_pe] and v = W_UV c_kv per head, at a cache cost of kv_lora_rank + qk_rope per token.

Sizes: dim 128, 4 heads, q_lora_rank 48, kv_lora_rank 32, qk_nope 16, qk_rope 8, v_head 16, a 64-slot cache
(DeepSeek-V3: dim 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128). Random nn.Linear weights,
RMSNorm weights 1, rope_theta 10000.
Inputs: x (2, 1, 128) the new tokens' hidden states; kv_cache (2, 64, 32) and pe_cache (2, 64, 8) with slots past
each sequence's length holding stale values; cache_lens (2,) int64 = [40, 63] tokens already cached (the new token
goes to slot cache_lens[b]). Output: (y (2, 1, 128), the updated kv_cache (2, 64, 32), the updated pe_cache (2, 64, 8)).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
dim = 128
n_heads = 4
q_lora_rank = 48
kv_lora_rank = 32
qk_nope_head_dim = 16
qk_rope_head_dim = 8
v_head_dim = 16
max_seq_len = 64
rope_theta = 10000.0
cache_lens = [40, 63]


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return F.rms_norm(x, (x.size(-1),), self.weight, self.eps)


def precompute_freqs_cis(rope_dim, seqlen, theta):
    freqs = 1.0 / (theta ** (torch.arange(0, rope_dim, 2, dtype=torch.float32) / rope_dim))
    freqs = torch.outer(torch.arange(seqlen, dtype=torch.float32), freqs)
    return torch.polar(torch.ones_like(freqs), freqs)  # (seqlen, rope_dim / 2) complex64


def apply_rotary_emb(x, freqs_cis):
    """x (b, s, h, d) real, freqs_cis (b, s, d / 2) complex: rotate consecutive pairs (x0, x1), (x2, x3), ..."""
    dtype = x.dtype
    xc = torch.view_as_complex(x.float().view(*x.shape[:-1], -1, 2))
    y = torch.view_as_real(xc * freqs_cis.unsqueeze(2)).flatten(3)
    return y.to(dtype)


class Model(nn.Module):
    def __init__(self, dim, n_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
                 max_seq_len):
        super().__init__()
        self.n_heads = n_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_nope_head_dim = qk_nope_head_dim
        self.qk_rope_head_dim = qk_rope_head_dim
        self.qk_head_dim = qk_nope_head_dim + qk_rope_head_dim
        self.v_head_dim = v_head_dim
        self.wq_a = nn.Linear(dim, q_lora_rank, bias=False)
        self.q_norm = RMSNorm(q_lora_rank)
        self.wq_b = nn.Linear(q_lora_rank, n_heads * self.qk_head_dim, bias=False)
        self.wkv_a = nn.Linear(dim, kv_lora_rank + qk_rope_head_dim, bias=False)
        self.kv_norm = RMSNorm(kv_lora_rank)
        self.wkv_b = nn.Linear(kv_lora_rank, n_heads * (qk_nope_head_dim + v_head_dim), bias=False)
        self.wo = nn.Linear(n_heads * v_head_dim, dim, bias=False)
        self.softmax_scale = self.qk_head_dim ** -0.5
        self.register_buffer("freqs_cis", precompute_freqs_cis(qk_rope_head_dim, max_seq_len, rope_theta),
                             persistent=False)

    def forward(self, x, kv_cache, pe_cache, cache_lens):
        bsz, seqlen, _ = x.shape  # seqlen == 1 (decode)
        T = kv_cache.shape[1]
        pos = cache_lens.view(bsz, 1) + torch.arange(seqlen, device=x.device)  # (b, s) positions of the new tokens
        freqs_cis = self.freqs_cis[pos]  # (b, s, rope / 2)

        q = self.wq_b(self.q_norm(self.wq_a(x))).view(bsz, seqlen, self.n_heads, self.qk_head_dim)
        q_nope, q_pe = torch.split(q, [self.qk_nope_head_dim, self.qk_rope_head_dim], dim=-1)
        q_pe = apply_rotary_emb(q_pe, freqs_cis)

        kv = self.wkv_a(x)
        kv, k_pe = torch.split(kv, [self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        k_pe = apply_rotary_emb(k_pe.unsqueeze(2), freqs_cis).squeeze(2)
        kv = self.kv_norm(kv)

        # write the new latents into their slots (out of place: the caches passed in stay unchanged)
        slot = F.one_hot(pos, T).to(x.dtype).transpose(1, 2)  # (b, T, s)
        written = slot.sum(-1, keepdim=True) > 0  # (b, T, 1)
        kv_cache = torch.where(written, torch.bmm(slot, kv), kv_cache)
        pe_cache = torch.where(written, torch.bmm(slot, k_pe), pe_cache)

        # absorb W_UK into the query, attend over the latent cache, absorb W_UV after
        wkv_b = self.wkv_b.weight.view(self.n_heads, -1, self.kv_lora_rank)  # (h, nope + v, c)
        q_lat = torch.einsum("bshd,hdc->bshc", q_nope, wkv_b[:, : self.qk_nope_head_dim])
        scores = (torch.einsum("bshc,btc->bsht", q_lat, kv_cache)
                  + torch.einsum("bshr,btr->bsht", q_pe, pe_cache)) * self.softmax_scale
        valid = torch.arange(T, device=x.device).view(1, 1, T) <= pos.unsqueeze(-1)  # (b, s, T): causal + length
        scores = scores.masked_fill(~valid.unsqueeze(2), float("-inf"))
        probs = scores.softmax(dim=-1, dtype=torch.float32).type_as(x)
        o_lat = torch.einsum("bsht,btc->bshc", probs, kv_cache)
        o = torch.einsum("bshc,hdc->bshd", o_lat, wkv_b[:, -self.v_head_dim:])
        y = self.wo(o.flatten(2))
        return y, kv_cache, pe_cache


def get_inputs():
    x = torch.randn(batch_size, 1, dim)
    kv_cache = torch.randn(batch_size, max_seq_len, kv_lora_rank)  # RMS-normalised latents: unit scale
    pe_cache = torch.randn(batch_size, max_seq_len, qk_rope_head_dim)
    lens = torch.tensor([cache_lens[b % len(cache_lens)] for b in range(batch_size)], dtype=torch.long)
    return [x, kv_cache, pe_cache, lens]


def get_init_inputs():
    return [dim, n_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, max_seq_len]
