"""Kimi Delta Attention (KDA; Kimi Team / Moonshot AI 2025, "Kimi Linear: An Expressive, Efficient Attention
Architecture"), readable reference of a 2-layer decoder stack of KDA layers in the RECURRENT form: a Python loop over
the time steps carrying each head's (d_k x d_v) state, after fla's naive_recurrent_kda and the KimiDeltaAttention
layer of moonshotai/Kimi-Linear-48B-A3B (`linear_attn_config`; the 3:1 KDA : MLA interleave and the MoE left out).

KDA is the gated delta rule with a fine-grained (per key channel, diagonal) forget gate instead of Gated DeltaNet's
one scalar per head. Per head, with alpha_t in (0, 1)^{d_k} and beta_t in (0, 1):
    S_t = (I - beta_t k_t k_t^T) Diag(alpha_t) S_{t-1} + beta_t k_t v_t^T,    o_t = S_t^T q_t
computed step by step as S <- Diag(alpha_t) S; S <- S + k_t (beta_t (v_t - S^T k_t))^T; o_t = S^T q_t.
Parameterisation (per token x, after the layer's pre-RMSNorm):
  q, k, v = SiLU(ShortConv(W x)): bias-free projections, each through a causal depthwise Conv1d (kernel 4, no bias,
      left-padded) and SiLU; q and k L2-normalised per head, q scaled by d_k^-0.5;
  log alpha = -exp(A_log[h]) * softplus(W_f_b W_f_a x + dt_bias): a low-rank (rank d_k) projection to every key
      channel of every head, A_log one per head, dt_bias one per channel;
  beta = sigmoid(W_b x), one per head;
  output: RMSNorm over each head's d_v channels (learnable scale, eps 1e-5) times sigmoid(W_g_b W_g_a x) (a
      low-rank output gate), heads concatenated, W_o.
Layer: x <- x + KDA(RMSNorm(x)); x <- x + SwiGLU(RMSNorm(x)) with SwiGLU(x) = W_2 (SiLU(W_1 x) * W_3 x); final
RMSNorm. No position encoding (KDA is causal by construction). All linears bias-free.
Inits: PyTorch defaults for every Linear and Conv1d; A_log = log U(1, 16) and dt_bias = softplus^-1(dt) with
dt = exp(U(log 1e-3, log 1e-1)) (fla's KDA init); RMSNorm scales 1.
Sizes: d_model 64 (published 2304), 2 heads (32) of d_k = d_v = 32 (128), short conv kernel 4 (4), SwiGLU hidden 256
(dense-layer ratio 4 kept: 9216 / 2304), 2 layers (27), seq 32.

Input: x (2, 32, 64) = (batch, seq, d_model) embeddings. Output: (2, 32, 64).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 32
d_model = 64
num_heads = 2
head_dim = 32
conv_size = 4
ffn_dim = 256
num_layers = 2


class ShortConv(nn.Module):
    """Causal depthwise Conv1d over time, then SiLU: (B, T, C) -> (B, T, C)."""

    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, groups=channels, padding=kernel_size - 1, bias=False)

    def forward(self, x):
        T = x.shape[1]
        y = self.conv(x.transpose(1, 2))[..., :T]   # left context only
        return F.silu(y.transpose(1, 2))


class KimiDeltaAttention(nn.Module):
    def __init__(self, d_model, num_heads, head_dim, conv_size):
        super().__init__()
        self.h = num_heads
        self.d = head_dim
        proj = num_heads * head_dim
        self.q_proj = nn.Linear(d_model, proj, bias=False)
        self.k_proj = nn.Linear(d_model, proj, bias=False)
        self.v_proj = nn.Linear(d_model, proj, bias=False)
        self.q_conv = ShortConv(proj, conv_size)
        self.k_conv = ShortConv(proj, conv_size)
        self.v_conv = ShortConv(proj, conv_size)
        self.f_a_proj = nn.Linear(d_model, head_dim, bias=False)      # forget gate, low rank
        self.f_b_proj = nn.Linear(head_dim, proj, bias=False)
        self.A_log = nn.Parameter(torch.empty(num_heads).uniform_(1, 16).log())
        dt = torch.exp(torch.rand(proj) * (math.log(0.1) - math.log(0.001)) + math.log(0.001)).clamp(min=1e-4)
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # softplus^-1(dt)
        self.b_proj = nn.Linear(d_model, num_heads, bias=False)
        self.g_a_proj = nn.Linear(d_model, head_dim, bias=False)      # output gate, low rank
        self.g_b_proj = nn.Linear(head_dim, proj, bias=False)
        self.o_norm = nn.RMSNorm(head_dim, eps=1e-5)
        self.o_proj = nn.Linear(proj, d_model, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        H, D = self.h, self.d
        q = self.q_conv(self.q_proj(x)).view(B, T, H, D)
        k = self.k_conv(self.k_proj(x)).view(B, T, H, D)
        v = self.v_conv(self.v_proj(x)).view(B, T, H, D)
        q = F.normalize(q, p=2, dim=-1) * D ** -0.5
        k = F.normalize(k, p=2, dim=-1)
        f = self.f_b_proj(self.f_a_proj(x)).view(B, T, H, D)
        log_alpha = -self.A_log.exp()[:, None] * F.softplus(f + self.dt_bias.view(H, D))   # (B, T, H, d_k), <= 0
        beta = self.b_proj(x).sigmoid()                                                     # (B, T, H)

        S = x.new_zeros(B, H, D, D)                                                         # (d_k x d_v) per head
        outs = []
        for t in range(T):
            q_t, k_t, v_t = q[:, t], k[:, t], v[:, t]                                       # (B, H, D)
            S = S * log_alpha[:, t].exp().unsqueeze(-1)                                     # Diag(alpha_t) S
            v_old = torch.einsum("bhk,bhkv->bhv", k_t, S)                                   # S^T k_t
            delta = beta[:, t].unsqueeze(-1) * (v_t - v_old)
            S = S + torch.einsum("bhk,bhv->bhkv", k_t, delta)
            outs.append(torch.einsum("bhk,bhkv->bhv", q_t, S))                              # S^T q_t
        o = torch.stack(outs, dim=1)                                                        # (B, T, H, d_v)

        gate = self.g_b_proj(self.g_a_proj(x)).view(B, T, H, D)
        o = self.o_norm(o) * gate.sigmoid()
        return self.o_proj(o.reshape(B, T, H * D))


class SwiGLU(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.w1 = nn.Linear(d_model, hidden, bias=False)
        self.w3 = nn.Linear(d_model, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class KDALayer(nn.Module):
    def __init__(self, d_model, num_heads, head_dim, conv_size, ffn_dim):
        super().__init__()
        self.attn_norm = nn.RMSNorm(d_model, eps=1e-5)
        self.attn = KimiDeltaAttention(d_model, num_heads, head_dim, conv_size)
        self.ffn_norm = nn.RMSNorm(d_model, eps=1e-5)
        self.ffn = SwiGLU(d_model, ffn_dim)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.ffn(self.ffn_norm(x))


class Model(nn.Module):
    def __init__(self, d_model, num_heads, head_dim, conv_size, ffn_dim, num_layers):
        super().__init__()
        self.layers = nn.ModuleList(
            [KDALayer(d_model, num_heads, head_dim, conv_size, ffn_dim) for _ in range(num_layers)]
        )
        self.norm = nn.RMSNorm(d_model, eps=1e-5)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads, head_dim, conv_size, ffn_dim, num_layers]
