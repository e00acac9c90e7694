"""Gated DeltaNet (Yang, Kautz and Hatamizadeh 2024, "Gated Delta Networks: Improving Mamba2 with Delta Rule"),
the chunkwise kernel reference, after fla's naive chunk_gated_delta_rule. Per head the (d_k x d_v) state follows
the gated delta rule
    S_t = alpha_t (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T,    o_t = S_t^T q_t,
with alpha_t = exp(g_t). Inside a chunk the product of Householder-like factors is put in WY/UT form: the strictly
lower-triangular matrix -(diag(beta) K K^T * decay) is inverted by forward substitution (a Python loop over the
rows), giving the pseudo-values u = T (beta * v) and w = T (beta * k * exp(cumsum g)); across chunks the state is
carried through a Python loop, each chunk correcting its pseudo-values with the state (v_new = u - w S).
q and k are L2-normalised inside (use_qk_l2norm_in_kernel), q is scaled by d_k^-0.5.

Inputs: q, k (batch, heads, seq, d_k), v (batch, heads, seq, d_v), the log decay g (batch, heads, seq) (<= 0) and
the write strength beta (batch, heads, seq) in (0, 1), all float32.
Output: o (batch, heads, seq, d_v) and the final state (batch, heads, d_k, d_v).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
heads = 4
seq_len = 256
d_k = 64
d_v = 64
chunk_size = 64


class Model(nn.Module):
    def __init__(self, chunk_size):
        super().__init__()
        self.chunk_size = chunk_size

    def forward(self, q, k, v, g, beta):
        B, H, T, K = q.shape
        V = v.shape[-1]
        C = self.chunk_size
        N = T // C
        q = F.normalize(q, p=2, dim=-1) * K ** -0.5
        k = F.normalize(k, p=2, dim=-1)
        v = v * beta.unsqueeze(-1)
        k_beta = k * beta.unsqueeze(-1)
        q, k, v, k_beta = (t.reshape(B, H, N, C, -1) for t in (q, k, v, k_beta))
        g = g.reshape(B, H, N, C).cumsum(-1)                   # cumulative log decay inside each chunk
        mask_incl = torch.triu(torch.ones(C, C, dtype=torch.bool, device=q.device), diagonal=0)
        mask_strict = torch.triu(torch.ones(C, C, dtype=torch.bool, device=q.device), diagonal=1)
        decay = (g.unsqueeze(-1) - g.unsqueeze(-2)).tril().exp().tril()   # exp(g_i - g_j) for j <= i

        # UT transform: T = (I + strict_lower(diag(beta) K K^T * decay))^-1 by forward substitution
        attn = -((k_beta @ k.transpose(-1, -2)) * decay).masked_fill(mask_incl, 0)
        for i in range(1, C):
            row = attn[..., i, :i].clone()
            attn[..., i, :i] = row + (row.unsqueeze(-1) * attn[..., :i, :i].clone()).sum(-2)
        attn = attn + torch.eye(C, dtype=q.dtype, device=q.device)
        u = attn @ v                                            # pseudo-values
        w = attn @ (k_beta * g.exp().unsqueeze(-1))             # decayed pseudo-keys

        state = q.new_zeros(B, H, K, V)
        outs = []
        for n in range(N):
            qn, kn, gn = q[:, :, n], k[:, :, n], g[:, :, n]
            v_new = u[:, :, n] - w[:, :, n] @ state
            intra = (qn @ kn.transpose(-1, -2) * decay[:, :, n]).masked_fill(mask_strict, 0)
            inter = (qn * gn.exp().unsqueeze(-1)) @ state
            outs.append(inter + intra @ v_new)
            k_dec = kn * (gn[..., -1:] - gn).exp().unsqueeze(-1)
            state = state * gn[..., -1].exp()[..., None, None] + k_dec.transpose(-1, -2) @ v_new
        return torch.stack(outs, dim=2).reshape(B, H, T, V), state


def get_inputs():
    q = torch.randn(batch_size, heads, seq_len, d_k)
    k = torch.randn(batch_size, heads, seq_len, d_k)
    v = torch.randn(batch_size, heads, seq_len, d_v)
    g = F.logsigmoid(torch.randn(batch_size, heads, seq_len) + 3)     # alpha_t around 0.95
    beta = torch.sigmoid(torch.randn(batch_size, heads, seq_len))
    return [q, k, v, g, beta]


def get_init_inputs():
    return [chunk_size]
