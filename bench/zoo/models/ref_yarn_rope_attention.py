"""Causal grouped-query self-attention with YaRN-scaled rotary position embeddings (Peng et al. 2023, "YaRN:
Efficient Context Window Extension of Large Language Models"; GQA: Ainslie et al. 2023), written in plain
PyTorch as a reference. The YaRN frequencies are computed once in __init__: for each rotary pair i the base
frequency theta^(-2i/d) is kept (extrapolation) for the high-frequency pairs that turn more than beta_fast = 32
times over the original context, divided by the scale factor s (position interpolation) for the pairs turning
fewer than beta_slow = 1 times, with a linear ramp between the two correction dimensions (floored/ceiled); the
cos/sin tables over all positions are multiplied by the attention temperature 0.1 * ln(s) + 1. The forward looks
the tables up at the given position ids, rotates q and k (rotate-half layout), repeats each KV head over its
query-head group and runs causal softmax attention, then the output projection.

Sizes: d_model 256, 8 query heads and 2 KV heads of dim 32, rope theta 10000, original context 64 extended by
s = 4 to 256 positions; batch 2, 128 tokens (past the original context, where YaRN matters); ~164K parameters.
Inputs: x (batch, seq, d_model) and position_ids (batch, seq) int64. Output: (batch, seq, d_model).
"""
import math

import torch
from torch import nn

batch_size = 2
seq_len = 128
d_model = 256
heads = 8
kv_heads = 2
head_dim = 32
rope_theta = 10000.0
yarn_factor = 4.0
original_max_position = 64
beta_fast = 32.0
beta_slow = 1.0


def yarn_inv_freq(dim, base, factor, original_max_position, beta_fast, beta_slow):
    def correction_dim(num_rotations):
        return dim * math.log(original_max_position / (num_rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    ramp = ((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low)).clamp(0, 1)
    extrapolation = 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    interpolation = extrapolation / factor
    keep = 1 - ramp  # 1: keep the original frequency, 0: interpolate
    return interpolation * (1 - keep) + extrapolation * keep


class Model(nn.Module):
    def __init__(self, d_model, heads, kv_heads, head_dim, rope_theta, yarn_factor, original_max_position):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.q_proj = nn.Linear(d_model, heads * head_dim, bias=False)
        self.k_proj = nn.Linear(d_model, kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(d_model, kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(heads * head_dim, d_model, bias=False)
        inv_freq = yarn_inv_freq(head_dim, rope_theta, yarn_factor, original_max_position, beta_fast, beta_slow)
        attention_factor = 0.1 * math.log(yarn_factor) + 1.0
        positions = torch.arange(int(yarn_factor * original_max_position), dtype=torch.float32)
        freqs = torch.outer(positions, inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)  # (max_positions, head_dim)
        self.register_buffer("cos", emb.cos() * attention_factor, persistent=False)
        self.register_buffer("sin", emb.sin() * attention_factor, persistent=False)

    @staticmethod
    def rotate_half(x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat([-x2, x1], dim=-1)

    def forward(self, x, position_ids):
        B, T, _ = x.shape
        H, KVH, D = self.heads, self.kv_heads, self.head_dim
        q = self.q_proj(x).view(B, T, H, D).transpose(1, 2)
        k = self.k_proj(x).view(B, T, KVH, D).transpose(1, 2)
        v = self.v_proj(x).view(B, T, KVH, D).transpose(1, 2)
        cos = self.cos[position_ids].unsqueeze(1)  # (B, 1, T, D)
        sin = self.sin[position_ids].unsqueeze(1)
        q = q * cos + self.rotate_half(q) * sin
        k = k * cos + self.rotate_half(k) * sin
        k = k[:, :, None].expand(B, KVH, H // KVH, T, D).reshape(B, H, T, D)
        v = v[:, :, None].expand(B, KVH, H // KVH, T, D).reshape(B, H, T, D)
        scores = (q @ k.transpose(-1, -2)) * D ** -0.5
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        probs = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)
        out = (probs @ v).transpose(1, 2).reshape(B, T, H * D)
        return self.o_proj(out)


def get_inputs():
    x = torch.randn(batch_size, seq_len, d_model)
    position_ids = torch.arange(seq_len).expand(batch_size, seq_len).contiguous()
    return [x, position_ids]


def get_init_inputs():
    return [d_model, heads, kv_heads, head_dim, rope_theta, yarn_factor, original_max_position]
