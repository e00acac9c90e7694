"""HGRN2 (Qin et al. 2024, "HGRN2: Gated Linear RNNs with State Expansion"), one token-mixing layer in its naive
recurrent form, after fla's HGRN2Attention: q/f/i projections, swish on q, a forget gate with a layer-wise lower
bound (f_t = lb + (1 - lb) * sigmoid(.), kept in log space), the input gate tied to it (k_t = 1 - f_t), and per head
an expanded (expand_ratio x head_dim) state updated by an outer product,
    S_t = diag(f_t) S_{t-1} + k_t i_t^T,    o_t = S_t^T q_t * expand_ratio^-0.5,
carried token by token in a Python loop; then RMSNorm and the output projection.

Shrunk: d_model 128 with 4 heads (expand_ratio 32, head dim 32) instead of 1024+ / expand_ratio 128.
Input: x (batch, seq, d_model). Output: (batch, seq, d_model).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
d_model = 128
expand_ratio = 32   # per-head forget/key dim; num_heads = d_model // expand_ratio
lower_bound = 0.5   # forget-gate lower bound of this layer (HGRN's bounds grow with depth)


class Model(nn.Module):
    def __init__(self, d_model, expand_ratio, lower_bound):
        super().__init__()
        self.num_heads = d_model // expand_ratio
        self.expand_ratio = expand_ratio
        self.lower_bound = lower_bound
        forget_dim = self.num_heads * expand_ratio
        self.q_proj = nn.Linear(d_model, forget_dim, bias=False)
        self.f_proj = nn.Linear(d_model, forget_dim, bias=False)
        self.i_proj = nn.Linear(d_model, d_model, bias=False)
        self.g_norm = nn.RMSNorm(d_model, eps=1e-5)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        B, T, D = x.shape
        H, K = self.num_heads, self.expand_ratio
        V = D // H
        lb = torch.tensor(self.lower_bound, dtype=x.dtype, device=x.device)
        q = F.silu(self.q_proj(x))
        g = torch.logaddexp(lb.log(), torch.log1p(-lb) + F.logsigmoid(self.f_proj(x)))   # log f_t
        k = 1 - g.exp()
        i = self.i_proj(x)
        q = q.view(B, T, H, K) * K ** -0.5
        k = k.view(B, T, H, K)
        g = g.view(B, T, H, K)
        i = i.view(B, T, H, V)
        state = x.new_zeros(B, H, K, V)
        out = []
        for t in range(T):
            state = state * g[:, t].exp().unsqueeze(-1) + k[:, t].unsqueeze(-1) * i[:, t].unsqueeze(-2)
            out.append((q[:, t].unsqueeze(-2) @ state).squeeze(-2))
        o = torch.stack(out, dim=1).reshape(B, T, D)
        return self.o_proj(self.g_norm(o))


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, expand_ratio, lower_bound]
