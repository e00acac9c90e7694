"""Selective Attention (Leviathan, Kalman & Matias 2025, "Selective Attention Improves Transformer", ICLR 2025,
arXiv 2410.02703), in plain PyTorch: a decoder-only LM whose causal attention lets every token MASK earlier tokens for
all later tokens, with no new parameters. In each layer the (post-RoPE, scaled) attention logits of head 0 are reused
as selection scores:
    S = ReLU(logits_head0)            (b, n, n), zero above the diagonal (causal),
    S[:, :, 0] = 0, diag(S) = 0       (no token masks the <BOS> token or itself),
    F[i, j] = sum_{k < i} S[k, j]     (shift S down one query row, cumulative sum over queries),
    logits_h <- logits_h - F          for EVERY head h, then causal softmax and A V.
Token k therefore lowers the weight of token j for all queries after k, by how strongly k "selected" j; unlike
softmax attention, attention to j can only decay as the sequence moves on (a soft, learned form of forgetting /
context pruning: keys whose accumulated F exceeds a threshold could be evicted from the KV cache at inference, which
this reference does not do). The selection matrix F is shared by all heads of a layer. Blocks: pre-RMSNorm attention
with RoPE (theta 10000) and pre-RMSNorm SwiGLU MLP, residual; final RMSNorm, untied LM head.

Sizes: vocab 1000 (token 0 = <BOS>), d_model 64, 2 layers, 4 heads of 16, SwiGLU 176; batch 2 x 64 tokens, each
sequence starting with <BOS>. Input: input_ids (2, 64). Output: logits (2, 64, 1000).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = 0
d_model = 64
num_layers = 2
num_heads = 4
head_dim = 16
mlp_hidden = 176
rope_theta = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, positions):
    """Rotate-half RoPE on (b, h, n, d)."""
    half = x.shape[-1] // 2
    inv_freq = rope_theta ** (-torch.arange(half, dtype=torch.float32, device=x.device) / half)
    angles = positions[:, None].float() * inv_freq[None, :]  # (n, half)
    cos, sin = angles.cos(), angles.sin()
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def selective_causal_attention(q, k, v):
    """q, k, v: (b, h, n, d). Returns (b, h, n, d)."""
    n = q.shape[2]
    causal = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    logits = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])  # (b, h, n, n)
    # selection scores from head 0, causal, never masking <BOS> (key 0) or the token itself
    s = F.relu(logits[:, 0]).masked_fill(~causal, 0.0)
    s = s.masked_fill(torch.eye(n, dtype=torch.bool, device=q.device), 0.0)
    s[:, :, 0] = 0.0
    # F[i, j] = sum_{k < i} S[k, j]: shift by one query row, then cumulative sum over queries
    s = torch.cat([torch.zeros_like(s[:, :1]), s[:, :-1]], dim=1)
    f = s.cumsum(dim=1)
    logits = logits - f[:, None]
    logits = logits.masked_fill(~causal, float("-inf"))
    return logits.softmax(dim=-1) @ v


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * num_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * head_dim, d_model, bias=False)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, num_heads, head_dim).permute(2, 0, 3, 1, 4)
        positions = torch.arange(n, device=x.device)
        q, k = rope(q, positions), rope(k, positions)
        o = selective_causal_attention(q, k, v)
        return self.o_proj(o.transpose(1, 2).reshape(b, n, num_heads * head_dim))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.attn = Attention()
        self.norm2 = RMSNorm(d_model)
        self.gate_up = nn.Linear(d_model, 2 * mlp_hidden, bias=False)
        self.down = nn.Linear(mlp_hidden, d_model, bias=False)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block() for _ in range(num_layers))
        self.norm = RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    return [input_ids]


def get_init_inputs():
    return []
