"""Mamba-3 (Lahoti, Li, Chen, Wang, Bick, Kolter, Dao & Gu, 2026, "Mamba-3: Improved Sequence Modeling using State
Space Principles"), the SISO layer in plain PyTorch with a chunked scan: a language model of Mamba-3 mixers and SwiGLU
MLPs. Three changes over Mamba-2's SSD, all in the recurrence. (1) Exponential-trapezoidal discretisation: the input
term is a data-dependent mix of the current and the previous token instead of the current one alone,
    S_t = alpha_t S_{t-1} + beta_t v_{t-1} k_{t-1}^T + gamma_t v_t k_t^T,      y_t = S_t q_t + D v_t
    alpha_t = exp(A_t dt_t),  beta_t = (1 - lambda_t) dt_t alpha_t,  gamma_t = lambda_t dt_t,  lambda_t = sigmoid(.)
with a data-dependent decay A_t = -max(softplus(.), 1e-4) and dt_t = softplus(. + dt_bias) per head (k = B, q = C, v =
x in SSM terms; this size-2 "convolution" replaces Mamba's short causal conv, which is dropped). (2) A complex state,
run as a data-dependent rotary embedding: angles theta_t = pi tanh(.) (one per rotated pair, shared across heads) are
integrated as phi_t = sum_{s<=t} theta_s dt_s (mod 2 pi) and rotate the first half of the state dims of both q_t and
k_t by phi_t (pairs (2i, 2i+1)); the rest of the state dims are not rotated. (3) B / C get an RMSNorm (QK-norm) and a
learned per-head bias (init 1) before the rotation. The output is gated y * SiLU(z) and projected. Chunked form (what
the kernel computes): the previous-token term is folded into the keys, k~_s = k_s (lambda_s dt_s + (1 - lambda_{s+1})
dt_{s+1}), so that inside a chunk
    y_t = exp(a_t) S~ q_t + sum_{s<=t} exp(a_t - a_s) (q_t . k~_s) v_s - (1 - lambda_{t+1}) dt_{t+1} (q_t . k_t) v_t
with S~ the state carried in from the earlier chunks and a the in-chunk cumulative sum of A dt; the last term removes
token t's not-yet-due "next-step" share; the carried state S~ (which does hold that share) is passed from chunk to
chunk as S~ <- exp(a_end) S~ + sum_s exp(a_end - a_s) v_s k~_s^T. The block is the paper's Llama-style stack:
pre-RMSNorm Mamba-3 mixer and pre-RMSNorm SwiGLU MLP, each residual. One in_proj gives z, x, B, C, dt, A, lambda and
the angles; no convolution, no output norm (is_outproj_norm off).

Sizes: vocab 1000, d_model 64, 2 layers, expand 2 (d_inner 128) in 4 heads of 32, d_state 32 (one B / C group,
rope_fraction 0.5: 8 rotated pairs), chunk 16, SwiGLU 176; batch 2 x 64 tokens (the reference module's defaults:
d_state 128, head dim 64, chunk 64).
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
expand = 2
head_dim = 32
d_state = 32
rope_fraction = 0.5
chunk_size = 16
mlp_hidden = 176
a_floor = 1e-4


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_pairs(x, cos, sin):
    """Rotate pairs (2i, 2i+1) of the last dim of x (..., n) by angles whose cos / sin are (..., m), m <= n / 2."""
    m = cos.shape[-1]
    pairs = x[..., : 2 * m].unflatten(-1, (m, 2))
    x0, x1 = pairs[..., 0], pairs[..., 1]
    rotated = torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).flatten(-2)
    return torch.cat([rotated, x[..., 2 * m:]], dim=-1)


def mamba3_chunked(q, k, v, adt, dt, lam, chunk):
    """q, k: (b, h, t, n) rotated C / B; v: (b, h, t, p); adt, dt, lam: (b, h, t). Returns y (b, h, t, p)."""
    b, h, t, n = q.shape
    p = v.shape[-1]
    # share of token s in the update of step s + 1 (zero after the last token)
    shifted = F.pad(dt[..., 1:] * (1.0 - lam[..., 1:]), (0, 1))
    scale = dt * lam + shifted
    k_scaled = k * scale[..., None]
    qk_self = (q * k).sum(-1) * shifted  # the part of token t that only enters at step t + 1
    c = t // chunk
    qc, kc, vc = (x.reshape(b, h, c, chunk, x.shape[-1]) for x in (q, k_scaled, v))
    a = adt.reshape(b, h, c, chunk).cumsum(-1)  # in-chunk cumulative log decay
    causal = torch.ones(chunk, chunk, dtype=torch.bool, device=q.device).tril()
    decay = torch.exp((a[..., :, None] - a[..., None, :]).masked_fill(~causal, float("-inf")))
    scores = (qc @ kc.transpose(-1, -2)) * decay  # (b, h, c, l, s)
    y_intra = scores @ vc
    state = q.new_zeros(b, h, p, n)
    outs = []
    for i in range(c):
        a_i = a[:, :, i]
        y_inter = torch.exp(a_i)[..., None] * (qc[:, :, i] @ state.transpose(-1, -2))
        outs.append(y_intra[:, :, i] + y_inter)
        to_end = torch.exp(a_i[..., -1:] - a_i)  # decay from each token to the chunk's end
        state = torch.exp(a_i[..., -1])[..., None, None] * state + (vc[:, :, i] * to_end[..., None]).transpose(
            -1, -2) @ kc[:, :, i]
    y = torch.stack(outs, dim=2).reshape(b, h, t, p)
    return y - qk_self[..., None] * v


class Mamba3Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.d_inner = expand * d_model
        self.nheads = self.d_inner // head_dim
        self.num_angles = int(d_state * rope_fraction) // 2
        self.split = [self.d_inner, self.d_inner, d_state, d_state, self.nheads, self.nheads, self.nheads,
                      self.num_angles]
        self.in_proj = nn.Linear(d_model, sum(self.split), bias=False)
        dt = torch.exp(torch.rand(self.nheads) * (math.log(0.1) - math.log(0.001)) + math.log(0.001)).clamp(min=1e-4)
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # softplus^-1(dt)
        self.B_bias = nn.Parameter(torch.ones(self.nheads, d_state))
        self.C_bias = nn.Parameter(torch.ones(self.nheads, d_state))
        self.B_norm = RMSNorm(d_state)
        self.C_norm = RMSNorm(d_state)
        self.D = nn.Parameter(torch.ones(self.nheads))
        self.out_proj = nn.Linear(self.d_inner, d_model, bias=False)

    def forward(self, u):
        bsz, t, _ = u.shape
        z, x, B, C, dd_dt, dd_a, trap, angles = torch.split(self.in_proj(u), self.split, dim=-1)
        dt = F.softplus(dd_dt + self.dt_bias).transpose(1, 2)  # (b, h, t)
        a = torch.clamp(-F.softplus(dd_a), max=-a_floor).transpose(1, 2)
        lam = torch.sigmoid(trap).transpose(1, 2)
        # data-dependent RoPE: cumulative angle per head (angles shared across heads, scaled by each head's dt)
        theta = math.pi * torch.tanh(angles)  # (b, t, m)
        phi = torch.cumsum(theta[:, None] * dt[..., None], dim=2)  # (b, h, t, m)
        phi = phi - 2 * math.pi * torch.floor(phi / (2 * math.pi))
        cos, sin = torch.cos(phi), torch.sin(phi)
        k = self.B_norm(B)[:, None] + self.B_bias[None, :, None]  # (b, h, t, n)
        q = self.C_norm(C)[:, None] + self.C_bias[None, :, None]
        k = rotate_pairs(k, cos, sin)
        q = rotate_pairs(q, cos, sin)
        v = x.view(bsz, t, self.nheads, head_dim).transpose(1, 2)
        y = mamba3_chunked(q, k, v, a * dt, dt, lam, chunk_size)
        y = y + self.D[None, :, None, None] * v
        y = y.transpose(1, 2).reshape(bsz, t, self.d_inner) * F.silu(z)
        return self.out_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.mixer = Mamba3Mixer()
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
