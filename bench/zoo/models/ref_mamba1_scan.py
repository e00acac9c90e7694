"""Mamba (Gu and Dao 2023, "Mamba: Linear-Time Sequence Modeling with Selective State Spaces"), one mixer layer
with the selective scan (S6) in its sequential reference form, after mamba_simple.Mamba + selective_scan_ref:
in_proj to (x, z), a short causal depthwise conv1d + SiLU on x, x_proj to the data-dependent (dt, B, C), dt_proj
and softplus(dt + bias) as the step size, the discretisation dA = exp(dt * A), dB x = dt * B * x, and the
per-time-step state update carried in a Python loop,
    h_t = exp(dt_t A) h_{t-1} + dt_t B_t x_t,    y_t = C_t h_t + D x_t,
then the SiLU(z) gate and out_proj. Initialisation as in Mamba (S4D-real A = -(1..d_state), D = 1, dt bias the
inverse softplus of dt log-uniform in [0.001, 0.1]).

Shrunk: d_model 64 (d_inner 128, d_state 16, d_conv 4, dt_rank 4), sequence 128.
Input: x (batch, seq, d_model). Output: (batch, seq, d_model).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
d_model = 64
d_state = 16
d_conv = 4
expand = 2


class Model(nn.Module):
    def __init__(self, d_model, d_state, d_conv, expand, dt_min=0.001, dt_max=0.1):
        super().__init__()
        d_inner = expand * d_model
        dt_rank = math.ceil(d_model / 16)
        self.d_inner, self.d_state, self.dt_rank = d_inner, d_state, dt_rank
        self.in_proj = nn.Linear(d_model, 2 * d_inner, bias=False)
        self.conv1d = nn.Conv1d(d_inner, d_inner, d_conv, groups=d_inner, padding=d_conv - 1, bias=True)
        self.x_proj = nn.Linear(d_inner, dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(dt_rank, d_inner, bias=True)
        nn.init.uniform_(self.dt_proj.weight, -dt_rank ** -0.5, dt_rank ** -0.5)
        dt = torch.exp(torch.rand(d_inner) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min)).clamp(min=1e-4)
        with torch.no_grad():
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))      # inverse softplus
        A = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_inner, 1)
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(d_inner))
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)

    def forward(self, hidden_states):
        Bsz, L, _ = hidden_states.shape
        xz = self.in_proj(hidden_states).transpose(1, 2)               # (B, 2 * d_inner, L)
        x, z = xz.chunk(2, dim=1)
        x = F.silu(self.conv1d(x)[..., :L])                             # causal short conv
        x_dbl = self.x_proj(x.transpose(1, 2))                          # (B, L, dt_rank + 2 * d_state)
        dt, B, C = torch.split(x_dbl, [self.dt_rank, self.d_state, self.d_state], dim=-1)
        delta = F.softplus(self.dt_proj(dt)).transpose(1, 2)            # (B, d_inner, L)
        A = -torch.exp(self.A_log)                                      # (d_inner, d_state)
        deltaA = torch.exp(torch.einsum("bdl,dn->bdln", delta, A))
        deltaB_u = torch.einsum("bdl,bln,bdl->bdln", delta, B, x)
        h = x.new_zeros(Bsz, self.d_inner, self.d_state)
        ys = []
        for t in range(L):
            h = deltaA[:, :, t] * h + deltaB_u[:, :, t]
            ys.append(torch.einsum("bdn,bn->bd", h, C[:, t]))
        y = torch.stack(ys, dim=2)                                      # (B, d_inner, L)
        y = y + x * self.D.unsqueeze(-1)
        y = y * F.silu(z)
        return self.out_proj(y.transpose(1, 2))


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, d_state, d_conv, expand]
