"""DeltaNet (Schlag et al. 2021; Yang et al. 2024) with the delta rule, naive recurrent reference: one state
update per token in a Python loop, S <- S + beta_t (v_t - S k_t) k_t^T, o_t = S q_t, with L2-normalised
q and k and a sigmoid beta from a projection. Short convolutions left out, as in the reference.

Input: x (batch, seq, d_model). Output: (batch, seq, d_model).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 48
d_model = 64
num_heads = 2


class Model(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.b_proj = nn.Linear(d_model, num_heads, bias=False)
        self.o_norm = nn.RMSNorm(self.head_dim, eps=1e-5)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        H, D = self.num_heads, self.head_dim
        q = F.normalize(F.silu(self.q_proj(x)).view(B, T, H, D), dim=-1)
        k = F.normalize(F.silu(self.k_proj(x)).view(B, T, H, D), dim=-1)
        v = F.silu(self.v_proj(x)).view(B, T, H, D)
        beta = self.b_proj(x).sigmoid()                   # (B, T, H)
        S = x.new_zeros(B, H, D, D)
        out = []
        for t in range(T):
            k_t, v_t, q_t = k[:, t], v[:, t], q[:, t]     # (B, H, D)
            b_t = beta[:, t, :, None]
            v_old = (S @ k_t.unsqueeze(-1)).squeeze(-1)
            S = S + ((b_t * (v_t - v_old)).unsqueeze(-1) @ k_t.unsqueeze(-2))
            out.append((S @ q_t.unsqueeze(-1)).squeeze(-1))
        o = torch.stack(out, dim=1)                       # (B, T, H, D)
        return self.o_proj(self.o_norm(o).reshape(B, T, H * D))


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads]
