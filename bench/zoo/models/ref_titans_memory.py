"""Titans neural long-term memory layer (Behrouz, Zhong & Mirrokni 2024, "Titans: Learning to Memorize at Test
Time"), naive chunkwise reference: the memory is a small per-head 2-layer MLP, M(k) = SiLU(k W1) W2, whose
weights are trained at test time on the associative loss l(M; k, v) = ||M(k) - v||^2, one mini-batch
gradient step per chunk, with momentum ("surprise") and weight decay (forgetting):
    G_c = sum_{t in chunk c} theta_t * grad_W l(M_{c-1}; k_t, v_t)     (gradients at the chunk-start weights)
    S_c = eta_c * S_{c-1} - G_c                                         (momentum, past surprise)
    M_c = (1 - alpha_c) * M_{c-1} + S_c                                 (forgetting gate)
theta_t (per token and head) = 0.1 * sigmoid(W_theta x_t); eta_c, alpha_c (per chunk and head) = sigmoid of a
projection of the chunk's mean input (data-dependent, constant inside a chunk, as the paper allows for
parallel training). The gradient through the MLP is written out with tensor ops (no autograd):
E = M(k) - v, dW2 = SiLU(Z)^T (2 theta E), dZ = (2 theta E W2^T) * SiLU'(Z), dW1 = k^T dZ, with Z = k W1.
Queries of chunk c read the memory left by chunks < c (no weight update on read), so the layer is causal.
q, k, v: linear projections, causal depthwise conv (width 4) and SiLU, as in the paper; q and k L2-normalised.
Output: per-head RMSNorm, sigmoid gate from a linear layer of the input, output projection.
A Python loop over the chunks carries the memory weights and momentum (per sample and head); the initial
memory weights are learned parameters (meta-learned initial memory).
Sizes: d_model 32, 2 heads of 16, memory hidden 64, chunk 16 on a 64-token input (4 chunks).

Input: x (2, 64, 32) = (batch, seq, d_model). Output: (2, 64, 32).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
d_model = 32
num_heads = 2
mem_hidden = 64
chunk_size = 16
conv_width = 4
max_lr = 0.1


class Model(nn.Module):
    def __init__(self, d_model, num_heads, mem_hidden, chunk_size, conv_width, max_lr):
        super().__init__()
        self.h = num_heads
        self.dk = d_model // num_heads
        self.chunk = chunk_size
        self.max_lr = max_lr
        self.conv_width = conv_width
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.qkv_conv = nn.Conv1d(3 * d_model, 3 * d_model, conv_width, groups=3 * d_model)
        self.to_lr = nn.Linear(d_model, num_heads)
        self.to_momentum = nn.Linear(d_model, num_heads)
        self.to_decay = nn.Linear(d_model, num_heads)
        nn.init.constant_(self.to_momentum.bias, 2.0)  # eta ~ 0.88 at init
        nn.init.constant_(self.to_decay.bias, -4.0)    # alpha ~ 0.02 at init
        self.w1_init = nn.Parameter(torch.randn(num_heads, self.dk, mem_hidden) / math.sqrt(self.dk))
        self.w2_init = nn.Parameter(torch.randn(num_heads, mem_hidden, self.dk) / math.sqrt(mem_hidden))
        self.o_norm = nn.RMSNorm(self.dk, eps=1e-6)
        self.gate = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        B, T, D = x.shape
        H, K, C = self.h, self.dk, self.chunk
        qkv = self.qkv(x).transpose(1, 2)
        qkv = F.silu(self.qkv_conv(F.pad(qkv, (self.conv_width - 1, 0)))).transpose(1, 2)  # causal conv
        q, k, v = (t.reshape(B, T, H, K).transpose(1, 2) for t in qkv.chunk(3, dim=-1))  # (B, H, T, K)
        q, k = F.normalize(q, dim=-1), F.normalize(k, dim=-1)
        theta = self.max_lr * torch.sigmoid(self.to_lr(x)).transpose(1, 2)  # (B, H, T)
        x_chunks = x.view(B, T // C, C, D).mean(dim=2)                        # (B, N, D)
        eta = torch.sigmoid(self.to_momentum(x_chunks))                       # (B, N, H)
        alpha = torch.sigmoid(self.to_decay(x_chunks))                        # (B, N, H)

        w1 = self.w1_init.expand(B, -1, -1, -1)                               # (B, H, K, F)
        w2 = self.w2_init.expand(B, -1, -1, -1)                               # (B, H, F, K)
        s1 = torch.zeros_like(w1)
        s2 = torch.zeros_like(w2)
        outs = []
        for n, s in enumerate(range(0, T, C)):
            qc, kc, vc = q[:, :, s:s + C], k[:, :, s:s + C], v[:, :, s:s + C]
            th = theta[:, :, s:s + C, None]                                   # (B, H, C, 1)
            # read: forward of the current memory, no update
            outs.append(F.silu(qc @ w1) @ w2)
            # write: explicit gradient of sum_t theta_t ||M(k_t) - v_t||^2 at the chunk-start weights
            z = kc @ w1                                                       # (B, H, C, F)
            sz = torch.sigmoid(z)
            a = z * sz                                                        # SiLU(z)
            err = a @ w2 - vc                                                 # (B, H, C, K)
            d_pred = 2.0 * th * err
            g2 = a.transpose(-1, -2) @ d_pred                                 # (B, H, F, K)
            d_z = (d_pred @ w2.transpose(-1, -2)) * (sz * (1.0 + z * (1.0 - sz)))
            g1 = kc.transpose(-1, -2) @ d_z                                   # (B, H, K, F)
            e = eta[:, n, :, None, None]
            keep = 1.0 - alpha[:, n, :, None, None]
            s1 = e * s1 - g1
            s2 = e * s2 - g2
            w1 = keep * w1 + s1
            w2 = keep * w2 + s2
        o = self.o_norm(torch.cat(outs, dim=2))                               # (B, H, T, K)
        o = o.transpose(1, 2).reshape(B, T, D)
        return self.out_proj(o * torch.sigmoid(self.gate(x)))


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads, mem_hidden, chunk_size, conv_width, max_lr]
