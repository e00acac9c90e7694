"""Differential Transformer (Ye et al. 2024, "Differential Transformer"), readable reference of a 2-layer causal
decoder stack with differential attention, after the official microsoft/unilm Diff-Transformer
multihead_diffattn.py (no flash-attention, no GQA).

Differential attention, per head i (h = 4 heads, d = d_model / h / 2 = 8): the query / key projections give
2h heads of dim d, heads (2i, 2i + 1) being the halves Q1, Q2 and K1, K2 of head i; the value head has dim 2d.
RoPE (interleaved pairs, theta 10000) is applied to every q and k half-head. Then
    A1 = softmax(Q1 K1^T / sqrt(d) + M),  A2 = softmax(Q2 K2^T / sqrt(d) + M)    (M: causal mask, -inf above)
    head_i = (A1 - lambda A2) V
    lambda = exp(lambda_q1 . lambda_k1) - exp(lambda_q2 . lambda_k2) + lambda_init
with learnable vectors lambda_q1, lambda_k1, lambda_q2, lambda_k2 in R^d (one set per layer, shared by its
heads) and lambda_init = 0.8 - 0.6 exp(-0.3 (l - 1)) for layer l = 1, 2 (0.2, 0.356). Each head's output is
normalized on its own (the paper's GroupNorm: an RMSNorm over the head's 2d channels, eps 1e-5, learnable
scale), multiplied by (1 - lambda_init), the heads are concatenated and projected back (W_O).
Layer (pre-RMSNorm, as in the paper): x <- x + DiffAttn(RMSNorm(x)); x <- x + SwiGLU(RMSNorm(x)), with
SwiGLU(x) = W_2 (SiLU(W_1 x) * W_3 x), hidden 176 (8/3 d_model rounded up to a multiple of 16); final RMSNorm.
No biases. Softmax in float32.
Inits: PyTorch defaults for every Linear; lambda vectors N(0, 0.1^2) (as in the official code); RMSNorm scales 1.
Sizes: d_model 64, 4 heads (q / k half-heads of dim 8, value heads of dim 16), seq 48, 2 layers.

Input: x (2, 48, 64) = (batch, seq, d_model) embeddings. Output: (2, 48, 64).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 48
d_model = 64
num_heads = 4
num_layers = 2
ffn_dim = 176  # 8/3 * d_model rounded up to a multiple of 16
rope_theta = 10000.0


def apply_rope(x, cos, sin):
    """Rotate interleaved pairs (x_{2j}, x_{2j+1}) of x (..., T, d) by the angles t * theta_j."""
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class DiffAttention(nn.Module):
    def __init__(self, d_model, num_heads, layer):  # layer: 1-based index in the stack
        super().__init__()
        self.h = num_heads
        self.d = d = d_model // num_heads // 2
        self.scale = d ** -0.5
        self.q_proj = nn.Linear(d_model, d_model, bias=False)  # 2h half-heads of dim d
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)  # h heads of dim 2d
        self.o_proj = nn.Linear(d_model, d_model, bias=False)
        self.lambda_init = 0.8 - 0.6 * math.exp(-0.3 * (layer - 1))
        self.lambda_q1 = nn.Parameter(torch.randn(d) * 0.1)
        self.lambda_k1 = nn.Parameter(torch.randn(d) * 0.1)
        self.lambda_q2 = nn.Parameter(torch.randn(d) * 0.1)
        self.lambda_k2 = nn.Parameter(torch.randn(d) * 0.1)
        self.head_norm = nn.RMSNorm(2 * d, eps=1e-5)  # per head, over its 2d channels

    def forward(self, x, cos, sin):
        B, T, D = x.shape
        h, d = self.h, self.d
        q = self.q_proj(x).view(B, T, 2 * h, d).transpose(1, 2)                      # (B, 2h, T, d)
        k = self.k_proj(x).view(B, T, 2 * h, d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, h, 2 * d).transpose(1, 2)                      # (B, h, T, 2d)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)

        scores = torch.einsum("bhtd,bhsd->bhts", q * self.scale, k)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
        probs = probs.view(B, h, 2, T, T)                                            # half-heads 2i, 2i + 1

        lambda_1 = torch.exp(torch.sum(self.lambda_q1 * self.lambda_k1))
        lambda_2 = torch.exp(torch.sum(self.lambda_q2 * self.lambda_k2))
        lam = lambda_1 - lambda_2 + self.lambda_init
        diff = probs[:, :, 0] - lam * probs[:, :, 1]                                 # (B, h, T, T)

        o = torch.einsum("bhts,bhsd->bhtd", diff, v)                                 # (B, h, T, 2d)
        o = self.head_norm(o) * (1 - self.lambda_init)
        o = o.transpose(1, 2).reshape(B, T, D)
        return self.o_proj(o)


class SwiGLU(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.w1 = nn.Linear(d_model, hidden, bias=False)
        self.w3 = nn.Linear(d_model, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class DiffTransformerLayer(nn.Module):
    def __init__(self, d_model, num_heads, ffn_dim, layer):
        super().__init__()
        self.attn_norm = nn.RMSNorm(d_model, eps=1e-5)
        self.attn = DiffAttention(d_model, num_heads, layer)
        self.ffn_norm = nn.RMSNorm(d_model, eps=1e-5)
        self.ffn = SwiGLU(d_model, ffn_dim)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.attn_norm(x), cos, sin)
        return x + self.ffn(self.ffn_norm(x))


class Model(nn.Module):
    def __init__(self, d_model, num_heads, num_layers, ffn_dim, seq_len, rope_theta):
        super().__init__()
        self.layers = nn.ModuleList(
            [DiffTransformerLayer(d_model, num_heads, ffn_dim, layer) for layer in range(1, num_layers + 1)]
        )
        self.norm = nn.RMSNorm(d_model, eps=1e-5)
        d = d_model // num_heads // 2
        inv_freq = rope_theta ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)  # (d / 2,)
        angles = torch.arange(seq_len, dtype=torch.float32)[:, None] * inv_freq       # (T, d / 2)
        self.register_buffer("rope_cos", angles.cos(), persistent=False)
        self.register_buffer("rope_sin", angles.sin(), persistent=False)

    def forward(self, x):
        T = x.shape[1]
        cos, sin = self.rope_cos[:T], self.rope_sin[:T]
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads, num_layers, ffn_dim, seq_len, rope_theta]
