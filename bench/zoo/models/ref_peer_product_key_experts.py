"""PEER, parameter-efficient expert retrieval (Xu Owen He, 2024, "Mixture of A Million Experts"), in plain PyTorch:
a decoder LM whose feed-forward layers are a pool of N tiny single-neuron experts, retrieved per token by
multi-head product-key search. For each token x and each of h retrieval heads:
    q = BatchNorm(W_q^h x)  split into halves q1, q2                 (query batch-norm, as in product-key memory)
    sub-keys C, C' (sqrt(N) each, per head): s1 = C q1, s2 = C' q2   (two small GEMMs instead of one over N keys)
    top-k of s1 and of s2, then the k x k candidate sums s1_i + s2_j (an outer sum), top-k again:
        expert index = i_idx * sqrt(N) + j_idx          (the product key [c_i; c'_j], score s1_i + s2_j)
    g = softmax over the k retrieved scores
    e_i(x) = gelu(u_i . x) v_i                                        (expert i = one hidden neuron: rows u_i, v_i)
    PEER(x) = sum_h sum_{i in top-k(h)} g_i e_i(x)
The expert weights u, v are two (N, d) embedding tables shared by all heads; retrieval makes the FFN a gather of
h * k rows of each table per token (embedding lookups with data-dependent indices, then batched dot products), so
compute grows with h * k while the parameter count grows with N. Blocks are pre-RMSNorm: causal multi-head
self-attention with RoPE (sdpa), then the PEER layer, each residual.

Sizes: vocab 1000, d_model 64, 2 layers, 4 attention heads; PEER: N = 64^2 = 4096 experts (paper: 1024^2),
h = 4 retrieval heads (paper 8), top-k 8 (paper 16), product-key dim 32 per half; batch 2 x 64 tokens (~1.3M
parameters, 1.05M of them the expert tables). The BatchNorm runs on its running statistics (eval mode).
Input: input_ids (2, 64). Output: (logits (2, 64, 1000), the expert indices retrieved by the first PEER layer
(2, 64, 4, 8) int64).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
vocab_size = 1000
d_model = 64
num_layers = 2
num_heads = 4
num_experts = 64 * 64
peer_heads = 4
peer_topk = 8
key_dim = 32


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, base=10000.0):
    """Rotary embedding over the last dim of (batch, heads, seq, head_dim), half-split layout."""
    t, d = x.shape[-2], x.shape[-1]
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32, device=x.device) / d)
    freqs = torch.arange(t, dtype=torch.float32, device=x.device)[:, None] * inv_freq[None]
    cos, sin = freqs.cos(), freqs.sin()
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class Attention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.out = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.num_heads, d // self.num_heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(rope(q), rope(k), v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class PEER(nn.Module):
    def __init__(self, d_model, num_experts, heads, topk, key_dim):
        super().__init__()
        self.heads, self.topk, self.key_dim = heads, topk, key_dim
        self.num_keys = math.isqrt(num_experts)
        assert self.num_keys ** 2 == num_experts
        self.query = nn.Linear(d_model, heads * 2 * key_dim, bias=False)
        self.query_norm = nn.BatchNorm1d(heads * 2 * key_dim)
        # per head, two sub-key tables of sqrt(N) keys each
        self.sub_keys = nn.Parameter(torch.randn(heads, 2, self.num_keys, key_dim) * key_dim ** -0.5)
        # the experts: one hidden neuron each (down row u_i, up row v_i), shared by all heads
        self.down = nn.Embedding(num_experts, d_model)
        self.up = nn.Embedding(num_experts, d_model)
        nn.init.normal_(self.down.weight, std=d_model ** -0.5)
        nn.init.normal_(self.up.weight, std=(heads * topk) ** -0.5)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.query_norm(self.query(x).reshape(b * t, -1)).view(b, t, self.heads, 2, self.key_dim)
        # scores against each sub-key table: (b, t, heads, 2, sqrt(N))
        sub_scores = torch.einsum("bthpd,hpnd->bthpn", q, self.sub_keys)
        s, idx = sub_scores.topk(self.topk, dim=-1)  # (b, t, h, 2, k)
        # outer sum over the k x k product-key candidates, then the final top-k
        cand_scores = (s[..., 0, :, None] + s[..., 1, None, :]).flatten(-2)  # (b, t, h, k * k)
        cand_index = (idx[..., 0, :, None] * self.num_keys + idx[..., 1, None, :]).flatten(-2)
        scores, pos = cand_scores.topk(self.topk, dim=-1)  # (b, t, h, k)
        experts = cand_index.gather(-1, pos)
        gates = scores.softmax(dim=-1)
        u = self.down(experts)  # (b, t, h, k, d)
        v = self.up(experts)
        hidden = F.gelu(torch.einsum("btd,bthkd->bthk", x, u))
        y = torch.einsum("bthk,bthkd->btd", hidden * gates, v)
        return y, experts


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.attn = Attention(d_model, num_heads)
        self.norm2 = RMSNorm(d_model)
        self.peer = PEER(d_model, num_experts, peer_heads, peer_topk, key_dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        y, experts = self.peer(self.norm2(x))
        return x + y, experts


class Model(nn.Module):
    def __init__(self, vocab_size, num_layers):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block() for _ in range(num_layers))
        self.norm = RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        x = self.embed(input_ids)
        first_experts = None
        for block in self.blocks:
            x, experts = block(x)
            if first_experts is None:
                first_experts = experts
        return self.head(self.norm(x)), first_experts


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, num_layers]
