"""Causal linear attention (Katharopoulos et al. 2020, "Transformers are RNNs"), one layer written as its
recurrence: feature map elu(x) + 1, per head a (d x d) state S and a normaliser z carried through a Python loop
over 512 time steps,
    S_t = S_{t-1} + phi(k_t)^T v_t,   z_t = z_{t-1} + phi(k_t),   o_t = phi(q_t) S_t / (phi(q_t) . z_t + eps),
between the q/k/v projections and the output projection. The long loop (512 iterations) is the point.

Shrunk: d_model 64, 4 heads of dim 16.
Input: x (batch, seq, d_model). Output: (batch, seq, d_model).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 512
d_model = 64
num_heads = 4


class Model(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.h = num_heads
        self.d = d_model // num_heads
        self.eps = 1e-6
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.o_proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        B, T, D = x.shape
        H, d = self.h, self.d
        q = F.elu(self.q_proj(x).view(B, T, H, d)) + 1
        k = F.elu(self.k_proj(x).view(B, T, H, d)) + 1
        v = self.v_proj(x).view(B, T, H, d)
        S = x.new_zeros(B, H, d, d)
        z = x.new_zeros(B, H, d)
        out = []
        for t in range(T):
            S = S + k[:, t].unsqueeze(-1) * v[:, t].unsqueeze(-2)
            z = z + k[:, t]
            num = (q[:, t].unsqueeze(-2) @ S).squeeze(-2)
            den = (q[:, t] * z).sum(-1, keepdim=True)
            out.append(num / (den + self.eps))
        return self.o_proj(torch.stack(out, dim=1).reshape(B, T, D))


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads]
