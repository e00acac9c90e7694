"""Mixture-of-Recursions decoder LM (Bae et al., 2025, "Mixture-of-Recursions: Learning Dynamic Recursive Depths
for Adaptive Token-Level Computation", arXiv 2507.10524), the expert-choice variant with recursion-wise KV caching,
in plain PyTorch. A recursive transformer with "Middle-Cycle" parameter sharing: a unique first layer, a shared
block of n_shared layers applied up to N_r times, a unique last layer. Before each recursion step r a step-specific
linear router scores every token still in play, g = sigmoid(theta_r . h_t), and each sequence keeps its top-k_r
tokens among those selected at step r - 1 (hierarchical filtering, so a token's depth is the number of steps it
survived; capacities k_r = ceil(L (N_r - r) / N_r): all, 2/3, 1/3 of the sequence). Only the selected tokens run
through the shared block, gathered in their original order: they attend causally to the other tokens selected at
the same step (recursion-wise caching: the KV cache of step r holds only step-r tokens), with RoPE at their original
positions. A selected token's state is updated as h <- h + g * (f(h) - h), f the shared block (the router weight
scales the block's residual update, keeping the router on the gradient path); unselected tokens pass through
unchanged. Blocks are pre-RMSNorm llama blocks (MHA with RoPE, SwiGLU MLP); a final RMSNorm and a tied LM head.
Padding tokens (right padding) are never preferred by the router (score -1) and are masked as keys; if a capacity
exceeds a sequence's valid tokens the padded slots it picks are left unchanged.

Sizes: vocab 1024, dim 128, 4 heads of 32, SwiGLU 256, 1 + 2 (shared, x3) + 1 layers, N_r = 3 recursions, rope
theta 10000, RMSNorm eps 1e-6 (the paper's MoR models: 135M-1.7B Llama-style, N_r 2-4).
Inputs: input_ids (2, 48) and attention_mask, the second sequence right-padded by 10 tokens.
Output: (logits (2, 48, 1024), per-token recursion depth (2, 48) int64).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 48
vocab_size = 1024
dim = 128
n_heads = 4
ffn_dim = 256
n_shared = 2
num_recursions = 3
rope_theta = 10000.0
pad_lens = [0, 10]


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, pos, theta):
    """x (b, h, n, d), pos (b, n): rotate-half RoPE at the given positions."""
    d = x.shape[-1]
    inv_freq = 1.0 / (theta ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d))
    freqs = pos.float()[..., None] * inv_freq  # (b, n, d / 2)
    emb = torch.cat([freqs, freqs], dim=-1)[:, None]  # (b, 1, n, d)
    x1, x2 = x.chunk(2, dim=-1)
    return x * emb.cos() + torch.cat([-x2, x1], dim=-1) * emb.sin()


class Block(nn.Module):
    def __init__(self, dim, n_heads, ffn_dim):
        super().__init__()
        self.n_heads = n_heads
        self.attn_norm = RMSNorm(dim)
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.mlp_norm = RMSNorm(dim)
        self.w_gate = nn.Linear(dim, ffn_dim, bias=False)
        self.w_up = nn.Linear(dim, ffn_dim, bias=False)
        self.w_down = nn.Linear(ffn_dim, dim, bias=False)

    def forward(self, x, pos, key_valid):
        """x (b, n, d) tokens in sequence order, pos (b, n) their positions, key_valid (b, n) bool."""
        b, n, d = x.shape
        q, k, v = self.wqkv(self.attn_norm(x)).view(b, n, 3, self.n_heads, -1).permute(2, 0, 3, 1, 4)
        q, k = rope(q, pos, rope_theta), rope(k, pos, rope_theta)
        mask = (pos[:, None, :] <= pos[:, :, None]) & key_valid[:, None, :]  # (b, n_q, n_k): causal + padding
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None])
        x = x + self.wo(o.transpose(1, 2).reshape(b, n, d))
        h = self.mlp_norm(x)
        return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))


class Model(nn.Module):
    def __init__(self, vocab_size, dim, n_heads, ffn_dim, n_shared, num_recursions):
        super().__init__()
        self.num_recursions = num_recursions
        self.embed = nn.Embedding(vocab_size, dim)
        nn.init.normal_(self.embed.weight, std=dim ** -0.5)
        self.first = Block(dim, n_heads, ffn_dim)
        self.shared = nn.ModuleList([Block(dim, n_heads, ffn_dim) for _ in range(n_shared)])
        self.routers = nn.ModuleList([nn.Linear(dim, 1, bias=False) for _ in range(num_recursions)])
        self.last = Block(dim, n_heads, ffn_dim)
        self.norm = RMSNorm(dim)

    def forward(self, input_ids, attention_mask):
        b, L = input_ids.shape
        valid = attention_mask.bool()
        pos = torch.arange(L, device=input_ids.device).expand(b, L)
        h = self.first(self.embed(input_ids), pos, valid)
        active = valid.clone()  # tokens still in play (selected at the previous step)
        depth = torch.zeros(b, L, dtype=torch.long, device=input_ids.device)
        for r in range(self.num_recursions):
            k = math.ceil(L * (self.num_recursions - r) / self.num_recursions)
            g = torch.sigmoid(self.routers[r](h).squeeze(-1))  # (b, L)
            score = torch.where(active, g, torch.full_like(g, -1.0))
            idx = score.topk(k, dim=-1).indices.sort(dim=-1).values  # top-k, back in sequence order
            sel_valid = active.gather(1, idx)  # picked and really in play
            h_sel = h.gather(1, idx[..., None].expand(-1, -1, h.shape[-1]))
            pos_sel = pos.gather(1, idx)
            out = h_sel
            for blk in self.shared:
                out = blk(out, pos_sel, sel_valid)
            update = g.gather(1, idx)[..., None] * (out - h_sel) * sel_valid[..., None]
            h = h.scatter_add(1, idx[..., None].expand_as(update), update)
            active = torch.zeros_like(active).scatter(1, idx, sel_valid)
            depth = depth + active.long()
        h = self.norm(self.last(h, pos, valid))
        return F.linear(h, self.embed.weight), depth


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 1  # bos
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    for i in range(batch_size):
        p = pad_lens[i % len(pad_lens)]
        if p:
            input_ids[i, -p:] = 0
            attention_mask[i, -p:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    return [vocab_size, dim, n_heads, ffn_dim, n_shared, num_recursions]
