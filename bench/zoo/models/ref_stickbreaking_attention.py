"""Stick-breaking attention (Tan et al. 2024, "Scaling Stick-Breaking Attention: An Efficient Implementation and
In-Depth Study", ICLR 2025), readable reference of a small causal LM whose every attention layer is stick-breaking
attention, after the paper and the authors' naive reference / dolomite-engine `SBAttention` layer.

Softmax is replaced by a stick-breaking process over the past: for query position i, each earlier position j, from
the most recent one backwards, breaks off a fraction beta_ij = sigmoid(z_ij) of the attention "stick" still left by
the positions between them. Per head (head dim d):
    z_ij = q_i . k_j / sqrt(d),                                              for j < i (strictly causal)
    A_ij = beta_ij * prod_{j < k < i} (1 - beta_ik)
computed in log space (float32): log beta = logsigmoid(z), log(1 - beta) = logsigmoid(-z), and
    log A_ij = logsigmoid(z_ij) + sum_{k = j+1}^{i-1} logsigmoid(-z_ik)
where the inner sum is a reverse (suffix) cumulative sum along the key axis of the masked log(1 - beta) matrix
(zero at k >= i), minus its own term; A_ij = exp(log A_ij), set to 0 for j >= i.
The weights are not normalised: sum_j A_ij = 1 - prod_{j < i} (1 - beta_ij) <= 1. The leftover stick
r_i = 1 - sum_j A_ij goes to a learned per-head vector b_h (as in the authors' layer), so
    o_i = sum_{j < i} A_ij v_j + r_i b_h        (position 0, with no past, outputs b_h)
then a per-head GroupNorm (one group per head) over the concatenated heads and the output projection.
The recency bias of the process stands in for position information: no positional embedding (no RoPE, no ALiBi,
no learned positions) and no softmax anywhere in the mixer.
LM (pre-norm Llama-style layout): token embedding; layers of
x <- x + W_o GroupNorm(SB-Attn(W_q h, W_k h, W_v h)) with h = RMSNorm(x), x <- x + W_down(SiLU(W_gate h) * W_up h)
with h = RMSNorm(x); final RMSNorm; untied LM head. Bias-free projections, RMSNorm eps 1e-6, GroupNorm eps 1e-5,
Linear / Embedding N(0, 0.02^2), b_h = 0.
Shrunk from the paper's 350M / 1B-parameter models: hidden 128, 2 layers, 4 heads of 32,
SwiGLU intermediate 352, vocab 512, sequence 256 (this file's sizes).

Input: token ids (2, 256). Output: logits (2, 256, 512).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 256
vocab_size = 512
hidden_size = 128
num_heads = 4
num_layers = 2
intermediate_size = 352
initializer_range = 0.02


def stickbreaking_attention(q, k, v):
    """q, k, v: (B, H, T, d). Returns o: (B, H, T, d) and the leftover stick r: (B, H, T)."""
    T, d = q.shape[-2], q.shape[-1]
    z = torch.einsum("bhid,bhjd->bhij", q.float(), k.float()) / math.sqrt(d)
    past = torch.ones(T, T, dtype=torch.bool, device=q.device).tril(-1)  # j < i

    log_beta = F.logsigmoid(z)  # log of the fraction key j breaks off
    log_one_minus_beta = F.logsigmoid(-z).masked_fill(~past, 0.0)  # log of what it leaves, 0 outside the past
    # sum_{k > j, k < i} log(1 - beta_ik): suffix sum along the key axis, minus the k = j term
    suffix = log_one_minus_beta.flip(-1).cumsum(-1).flip(-1)
    log_att = log_beta + (suffix - log_one_minus_beta)
    att = log_att.masked_fill(~past, float("-inf")).exp()  # (B, H, T, T), rows sum to <= 1

    o = torch.einsum("bhij,bhjd->bhid", att, v.float())
    remainder = 1.0 - att.sum(dim=-1)
    return o.to(q.dtype), remainder.to(q.dtype)


class StickBreakingAttention(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.head_bias = nn.Parameter(torch.zeros(num_heads, self.head_dim))  # receives the leftover stick
        self.norm = nn.GroupNorm(num_heads, hidden_size)  # per-head normalisation of the output
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, x):
        B, T, C = x.shape
        H, d = self.num_heads, self.head_dim
        q = self.q_proj(x).view(B, T, H, d).transpose(1, 2)
        k = self.k_proj(x).view(B, T, H, d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, H, d).transpose(1, 2)
        o, remainder = stickbreaking_attention(q, k, v)
        o = o + remainder[..., None] * self.head_bias[None, :, None, :]
        o = o.transpose(1, 2).reshape(B * T, C)
        o = self.norm(o).view(B, T, C)
        return self.o_proj(o)


class SwiGLU(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, hidden_size, num_heads, intermediate_size):
        super().__init__()
        self.attn_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.attn = StickBreakingAttention(hidden_size, num_heads)
        self.mlp_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.mlp = SwiGLU(hidden_size, intermediate_size)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Model(nn.Module):
    def __init__(self, vocab_size, hidden_size, num_heads, num_layers, intermediate_size, initializer_range):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)  # no position embedding
        self.layers = nn.ModuleList([
            DecoderLayer(hidden_size, num_heads, intermediate_size) for _ in range(num_layers)
        ])
        self.norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=initializer_range)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, hidden_size, num_heads, num_layers, intermediate_size, initializer_range]
