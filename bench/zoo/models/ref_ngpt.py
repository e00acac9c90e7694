"""nGPT, the normalized Transformer (Loshchilov, Hsieh, Sun & Ginsburg, ICLR 2025, "nGPT: Normalized Transformer with
Representation Learning on the Hypersphere", NVIDIA), readable reference of a small causal LM after the paper's
equations and the parameterisation of the NVIDIA/ngpt reference code (every learnable scale stored as a vector
initialised to `init_scaling` and used as param * (init_value / init_scaling)).

Every vector lives on the unit hypersphere; there is no LayerNorm / RMSNorm anywhere, and no weight decay or warmup
is needed in training. With Norm(x) = x / ||x||_2 (no epsilon, as in the reference):
  - weights: every embedding row and every matrix row / column along the model dimension is unit-norm (the
    reference re-normalises them after each optimizer step; here once at construction, as a checkpoint stores them):
    token embedding and LM head rows, q / k / v / c_fc weights along their input dim, the two output projections
    along their output dim;
  - the residual stream is updated by a normalised interpolation instead of an addition, with learnable per-channel
    "eigen learning rates" alpha_A, alpha_M (|alpha|, init 0.05, scaling 1/sqrt(d)):
        h <- Norm(h + |alpha_A| * (Norm(Attn(h)) - h)),    h <- Norm(h + |alpha_M| * (Norm(MLP(h)) - h));
  - attention: q, k get RoPE, then are normalised per head and multiplied by a learnable per-channel s_qk (init 1,
    scaling 1/sqrt(d)), and the softmax scale is sqrt(d_head) instead of 1/sqrt(d_head) (unit q, k: the logits are
    cosines, so they must be scaled up); causal;
  - MLP: [u, v] = c_fc(h) * s_uv * sqrt(d) (s_uv per channel, init 1, scaling 1), out = W_o(u * SiLU(v));
  - logits: z = s_z * (E h) with a learnable per-vocabulary-entry s_z (init 1, scaling 1/sqrt(d)), no final norm.
Sizes: seq 128, d 64, 4 heads of 16, MLP 4 x d (c_fc to 2 x 256), 3 layers, vocab 512, RoPE theta 10000 (interleaved
pairs), bias-free. Inits: N(0, 0.02^2) then row / column normalisation as above. Stand-ins for trained scales: at
initialisation every alpha, s_qk, s_uv, s_z equals its init value exactly; each is multiplied by a random factor in
U(0.5, 2) so that the learned per-channel scalings are not constant.
Input: token ids (2, 128). Output: logits (2, 128, 512).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
vocab_size = 512
n_embd = 64
n_head = 4
n_layer = 3
rope_theta = 10000.0


def justnorm(x, dim=-1):
    return x / x.norm(p=2, dim=dim, keepdim=True)


def rope_interleaved(x, theta):
    """x: (B, T, H, D); rotates the pairs (x[2i], x[2i+1]) by position * theta^(-2i/D)."""
    B, T, H, D = x.shape
    inv_freq = 1.0 / (theta ** (torch.arange(0, D, 2, device=x.device).float() / D))
    angles = torch.arange(T, device=x.device).float()[:, None] * inv_freq  # (T, D/2)
    cos, sin = angles.cos()[None, :, None, :], angles.sin()[None, :, None, :]
    x_even, x_odd = x[..., 0::2], x[..., 1::2]
    out_even = x_even * cos - x_odd * sin
    out_odd = x_even * sin + x_odd * cos
    return torch.stack((out_even, out_odd), dim=-1).reshape(B, T, H, D)


class Block(nn.Module):
    def __init__(self, n_embd, n_head, rope_theta):
        super().__init__()
        self.n_embd, self.n_head, self.rope_theta = n_embd, n_head, rope_theta
        base_scale = 1.0 / math.sqrt(n_embd)
        self.query = nn.Linear(n_embd, n_embd, bias=False)
        self.key = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(n_embd, n_embd, bias=False)
        self.att_c_proj = nn.Linear(n_embd, n_embd, bias=False)
        self.c_fc = nn.Linear(n_embd, 2 * 4 * n_embd, bias=False)
        self.mlp_c_proj = nn.Linear(4 * n_embd, n_embd, bias=False)

        self.attn_alpha_init_value, self.attn_alpha_init_scaling = 0.05, base_scale
        self.attn_alpha = nn.Parameter(self.attn_alpha_init_scaling * torch.ones(n_embd))
        self.mlp_alpha_init_value, self.mlp_alpha_init_scaling = 0.05, base_scale
        self.mlp_alpha = nn.Parameter(self.mlp_alpha_init_scaling * torch.ones(n_embd))
        self.sqk_init_value, self.sqk_init_scaling = 1.0, base_scale
        self.sqk = nn.Parameter(self.sqk_init_scaling * torch.ones(n_embd))
        self.suv_init_value, self.suv_init_scaling = 1.0, 1.0
        self.suv = nn.Parameter(self.suv_init_scaling * torch.ones(2 * 4 * n_embd))

    def forward(self, h):
        B, T, C = h.shape
        H, D = self.n_head, C // self.n_head

        # attention on the sphere
        q = self.query(h).view(B, T, H, D)
        k = self.key(h).view(B, T, H, D)
        v = self.value(h).view(B, T, H, D)
        q, k = rope_interleaved(q, self.rope_theta), rope_interleaved(k, self.rope_theta)
        sqk = (self.sqk * (self.sqk_init_value / self.sqk_init_scaling)).view(1, 1, H, D)
        q = sqk * justnorm(q)
        k = sqk * justnorm(k)
        softmax_scale = math.sqrt(D)  # not 1 / sqrt(D)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # (B, H, T, D)
        scores = (q @ k.transpose(-1, -2)) * softmax_scale
        causal = torch.ones(T, T, dtype=torch.bool, device=h.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, C)
        h_att = self.att_c_proj(y)

        lr = torch.abs(self.attn_alpha * (self.attn_alpha_init_value / self.attn_alpha_init_scaling))
        a_norm, b_norm = justnorm(h), justnorm(h_att)
        h = justnorm(a_norm + lr * (b_norm - a_norm))

        # MLP on the sphere
        uv = self.c_fc(h)
        suv = self.suv * ((self.suv_init_value / self.suv_init_scaling) * (self.n_embd ** 0.5))
        uv = suv * uv
        u, v = torch.chunk(uv, 2, dim=-1)
        h_mlp = self.mlp_c_proj(u * F.silu(v))

        lr = torch.abs(self.mlp_alpha * (self.mlp_alpha_init_value / self.mlp_alpha_init_scaling))
        a_norm, b_norm = justnorm(h), justnorm(h_mlp)
        h = justnorm(a_norm + lr * (b_norm - a_norm))
        return h


class Model(nn.Module):
    def __init__(self, vocab_size, n_embd, n_head, n_layer, rope_theta):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head, rope_theta) for _ in range(n_layer)])
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.sz_init_value, self.sz_init_scaling = 1.0, 1.0 / math.sqrt(n_embd)
        self.sz = nn.Parameter(self.sz_init_scaling * torch.ones(vocab_size))
        with torch.no_grad():
            for module in self.modules():
                if isinstance(module, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(module.weight, mean=0.0, std=0.02)
            # normalize_matrices(): unit norm along the model dimension
            self.wte.weight.copy_(justnorm(self.wte.weight, 1))  # (V, d)
            self.lm_head.weight.copy_(justnorm(self.lm_head.weight, 1))  # (V, d)
            for block in self.blocks:
                for lin in (block.query, block.key, block.value, block.c_fc):
                    lin.weight.copy_(justnorm(lin.weight, 1))  # (out, d): rows
                for lin in (block.att_c_proj, block.mlp_c_proj):
                    lin.weight.copy_(justnorm(lin.weight, 0))  # (d, in): columns
            # stand-ins for trained per-channel scales: init value times U(0.5, 2)
            scales = [self.sz] + [p for b in self.blocks for p in (b.attn_alpha, b.mlp_alpha, b.sqk, b.suv)]
            for p in scales:
                p.mul_(torch.empty_like(p).uniform_(0.5, 2.0))

    def forward(self, input_ids):
        h = self.wte(input_ids)  # unit-norm rows
        for block in self.blocks:
            h = block(h)
        logits = self.lm_head(h)
        sz = self.sz * (self.sz_init_value / self.sz_init_scaling)
        return sz * logits


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, n_embd, n_head, n_layer, rope_theta]
