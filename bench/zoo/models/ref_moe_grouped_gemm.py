"""Mixture-of-experts feed-forward layer as a grouped GEMM (the dropless token-sorting scheme of MegaBlocks,
Gale et al. 2022, with the Mixtral-style top-2 router and SwiGLU experts of Jiang et al. 2024), written in plain
PyTorch as the reference a grouped-GEMM kernel author checks against. The expert weights are packed into 3D
parameters, w_gate_up (experts, d_model, 2 * d_ff) and w_down (experts, d_ff, d_model).
1. Router: logits = x @ w_router, softmax over the experts, top-2, the two weights renormalised to sum to 1.
2. Permute: the (token, expert) assignments are sorted by expert (stable argsort), tokens gathered in that order;
   tokens_per_expert (bincount) gives each expert's contiguous row range.
3. Grouped GEMM: a Python loop over the experts, each multiplying its row range by its slice of the packed
   weights (SwiGLU: silu(gate) * up, then the down projection); the per-expert row counts are data-dependent.
4. Unpermute: rows scaled by their routing weight and summed back to their tokens (index_add).

Sizes: batch 2, 64 tokens, d_model 64, d_ff 128, 8 experts, top-2 (~200K parameters).
Input: x (batch, seq, d_model). Output: y (batch, seq, d_model) and the router logits (batch * seq, experts).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
d_model = 64
d_ff = 128
num_experts = 8
top_k = 2


class Model(nn.Module):
    def __init__(self, d_model, d_ff, num_experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.w_router = nn.Parameter(torch.randn(d_model, num_experts) * d_model ** -0.5)
        self.w_gate_up = nn.Parameter(torch.randn(num_experts, d_model, 2 * d_ff) * d_model ** -0.5)
        self.w_down = nn.Parameter(torch.randn(num_experts, d_ff, d_model) * d_ff ** -0.5)

    def forward(self, x):
        B, T, D = x.shape
        E = self.w_gate_up.shape[0]
        F_ = self.w_down.shape[1]
        x = x.reshape(B * T, D)
        # 1. router
        logits = x @ self.w_router
        probs = torch.softmax(logits, dim=-1)
        top_w, top_e = probs.topk(self.top_k, dim=-1)        # (N, k)
        top_w = top_w / top_w.sum(dim=-1, keepdim=True)
        # 2. permute: sort the N * k assignments by expert
        flat_e = top_e.reshape(-1)
        order = torch.argsort(flat_e, stable=True)
        token_idx = order // self.top_k                      # which token each sorted row comes from
        x_sorted = x[token_idx]
        w_sorted = top_w.reshape(-1)[order]
        tokens_per_expert = torch.bincount(flat_e, minlength=E)
        # 3. grouped GEMM: one GEMM per expert over its contiguous rows
        outs = []
        start = 0
        for e, n in enumerate(tokens_per_expert.tolist()):
            rows = x_sorted[start:start + n]
            gate_up = rows @ self.w_gate_up[e]
            h = F.silu(gate_up[:, :F_]) * gate_up[:, F_:]
            outs.append(h @ self.w_down[e])
            start += n
        y_sorted = torch.cat(outs, dim=0)
        # 4. unpermute: weight and sum back to tokens
        y = x.new_zeros(B * T, D).index_add(0, token_idx, y_sorted * w_sorted[:, None])
        return y.reshape(B, T, D), logits


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, d_ff, num_experts, top_k]
