"""Gated DeltaProduct (Siems, Carstensen, Zela, Hutter, Pontil & Grazzi 2025, "DeltaProduct: Improving State-Tracking
in Linear RNNs via Householder Products", arXiv 2502.10297), in plain PyTorch: a language model of gated-DeltaProduct
mixers and SwiGLU MLPs, evaluated with the step-by-step recurrence. A delta-rule RNN takes ONE generalised Householder
step per token (its state transition I - beta k k^T has rank-1 structure); DeltaProduct takes n_h steps per token,
each with its own key, value and write strength, so the per-token transition is a PRODUCT of n_h generalised
Householder matrices (rank up to n_h: more expressive state tracking), with a data-dependent scalar decay applied
once per token:
    S <- exp(g_t) S
    for j = 1 .. n_h:   S <- S + beta_tj k_tj (v_tj - S^T k_tj)^T      (= (I - beta k k^T) S + beta k v^T)
    o_t = S^T q_t / sqrt(d_k)
with S (d_k x d_v) per head, keys and queries L2-normalised per head, beta_tj = 2 sigmoid(.) in (0, 2) so each
Householder factor can have a NEGATIVE eigenvalue (1 - beta in (-1, 1): reflections, needed for parity-like state
tracking), and a Mamba-2-style gate g_t = -exp(A_log) softplus(a(x_t) + dt_bias) per head. The query is read only
after the last of the n_h steps of its token. Mixer (as in flash-linear-attention's GatedDeltaProduct layer): q from
one projection, n_h keys and n_h values from wide projections, each of q / k / v through a causal depthwise short
conv (kernel 4) with SiLU, n_h betas per head, the recurrence above, a per-head gated RMSNorm of the output
(RMSNorm(o) * SiLU(g_proj x)), an output projection. Block: pre-RMSNorm mixer and pre-RMSNorm SwiGLU, each residual.

Sizes: vocab 1000, d_model 64, 2 layers, 4 heads with d_k = d_v = 16, n_h = 2 Householder steps per token, short
conv 4, SwiGLU 176; batch 2 x 64 tokens (128 recurrence steps per layer).
Input: input_ids (2, 64). Output: logits (2, 64, 1000).
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
head_dim = 16
num_householder = 2
conv_size = 4
mlp_hidden = 176


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class ShortConv(nn.Module):
    """Causal depthwise conv over time followed by SiLU: (b, t, c) -> (b, t, c)."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, conv_size, groups=channels, padding=conv_size - 1, bias=False)

    def forward(self, x):
        t = x.shape[1]
        return F.silu(self.conv(x.transpose(1, 2))[..., :t].transpose(1, 2))


def gated_deltaproduct_recurrent(q, k, v, beta, g):
    """q: (b, h, t, dk); k: (b, h, t, n, dk); v: (b, h, t, n, dv); beta: (b, h, t, n); g: (b, h, t) log decay.
    Returns o (b, h, t, dv)."""
    b, h, t, dk = q.shape
    dv = v.shape[-1]
    n = k.shape[3]
    state = q.new_zeros(b, h, dk, dv)
    q = q / math.sqrt(dk)
    outs = []
    for i in range(t):
        state = state * g[:, :, i].exp()[..., None, None]
        for j in range(n):
            k_j = k[:, :, i, j]  # (b, h, dk)
            pred = (state * k_j[..., None]).sum(-2)  # S^T k: (b, h, dv)
            delta = beta[:, :, i, j, None] * (v[:, :, i, j] - pred)
            state = state + k_j[..., None] * delta[..., None, :]
        outs.append((state * q[:, :, i, :, None]).sum(-2))
    return torch.stack(outs, dim=2)


class GatedDeltaProduct(nn.Module):
    def __init__(self):
        super().__init__()
        key_dim = num_heads * head_dim
        self.q_proj = nn.Linear(d_model, key_dim, bias=False)
        self.k_proj = nn.Linear(d_model, num_householder * key_dim, bias=False)
        self.v_proj = nn.Linear(d_model, num_householder * key_dim, bias=False)
        self.b_proj = nn.Linear(d_model, num_householder * num_heads, bias=False)
        self.a_proj = nn.Linear(d_model, num_heads, bias=False)
        self.A_log = nn.Parameter(torch.log(torch.linspace(1.0, 16.0, num_heads)))
        dt = torch.exp(torch.linspace(math.log(1e-3), math.log(1e-1), num_heads))
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # inverse softplus
        self.q_conv = ShortConv(key_dim)
        self.k_conv = ShortConv(num_householder * key_dim)
        self.v_conv = ShortConv(num_householder * key_dim)
        self.g_proj = nn.Linear(d_model, key_dim, bias=False)
        self.o_norm = RMSNorm(head_dim)
        self.o_proj = nn.Linear(key_dim, d_model, bias=False)

    def forward(self, x):
        bsz, t, _ = x.shape
        q = self.q_conv(self.q_proj(x)).view(bsz, t, num_heads, head_dim)
        k = self.k_conv(self.k_proj(x)).view(bsz, t, num_householder, num_heads, head_dim)
        v = self.v_conv(self.v_proj(x)).view(bsz, t, num_householder, num_heads, head_dim)
        q = F.normalize(q, dim=-1).transpose(1, 2)  # (b, h, t, dk)
        k = F.normalize(k, dim=-1).permute(0, 3, 1, 2, 4)  # (b, h, t, n, dk)
        v = v.permute(0, 3, 1, 2, 4)  # (b, h, t, n, dv)
        beta = 2.0 * torch.sigmoid(self.b_proj(x)).view(bsz, t, num_householder, num_heads).permute(0, 3, 1, 2)
        g = -self.A_log.exp() * F.softplus(self.a_proj(x) + self.dt_bias)  # (b, t, h)
        o = gated_deltaproduct_recurrent(q, k, v, beta, g.transpose(1, 2))
        o = o.transpose(1, 2)  # (b, t, h, dv)
        gate = self.g_proj(x).view(bsz, t, num_heads, head_dim)
        o = self.o_norm(o) * F.silu(gate)
        return self.o_proj(o.reshape(bsz, t, num_heads * head_dim))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.mixer = GatedDeltaProduct()
        self.norm2 = RMSNorm(d_model)
        self.gate_up = nn.Linear(d_model, 2 * mlp_hidden, bias=False)
        self.down = nn.Linear(mlp_hidden, d_model, bias=False)

    def forward(self, x):
        x = x + self.mixer(self.norm1(x))
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
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return []
