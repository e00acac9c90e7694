"""MoE++ (Jin et al., ICLR 2025, "MoE++: Accelerating Mixture-of-Experts Methods with Zero-Computation Experts"),
in plain PyTorch: a decoder LM whose MoE layers mix ordinary FFN experts with three kinds of zero-computation
experts, and whose routers pass their scores from layer to layer. Per token x (one layer j, N FFN experts + M
zero-computation experts, E = N + M):
    router:   G_j(x) = W_j x + W_g^j G_{j-1}(x)          (gating residual; G_0 has no residual term)
    gates:    p = softmax(G_j(x)) over all E experts, the top-2 kept (their probabilities as they are)
    experts:  FFN expert      E_i(x) = SwiGLU_i(x)
              zero expert     E(x) = 0                  (the token skips the layer's FFN for that slot)
              copy expert     E(x) = x
              constant expert E(x) = a1 x + a2 v,  [a1, a2] = softmax(W_c x),  v learned      (one per expert)
    output:   y = sum over the top-2 of p_e E_e(x)
so a token may use 0, 1 or 2 FFN experts and the FFN load is data-dependent. The FFN experts run as a dropless
grouped GEMM: the (token, slot) assignments are sorted by expert (stable argsort), so the FFN assignments come
first and the zero-computation ones last; tokens_per_expert (bincount) gives each FFN expert's row range and a
Python loop multiplies each range by that expert's slice of the packed weights; rows are weighted and summed back
(index_add). The zero-computation experts never enter the GEMM: their gates are read from a dense (tokens, E)
gate matrix built by scatter, and the copy and constant experts are applied as element-wise products. Blocks are
pre-RMSNorm with causal multi-head attention (RoPE) and the MoE++ layer in every block; the previous block's
router logits are threaded through the forward.

Sizes: vocab 1000, d_model 64, 3 layers, 4 heads of 16, 8 FFN experts of width 128 + 1 zero + 1 copy + 2 constant
experts (the paper's 7B/(16+4)E layout scaled from 16 FFN experts; the same 1 / 1 / 2 zero-computation split),
top-2; batch 2 x 64 tokens. (Training-only parts, the heterogeneous load-balance loss and expert capacity, are
omitted.)
Input: input_ids (2, 64). Output: logits (2, 64, 1000).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
vocab_size = 1000
d_model = 64
num_layers = 3
num_heads = 4
head_dim = 16
d_ff = 128
num_ffn_experts = 8
num_const_experts = 2
num_experts = num_ffn_experts + 1 + 1 + num_const_experts  # FFN, zero, copy, constant
zero_idx = num_ffn_experts
copy_idx = num_ffn_experts + 1
const_start = num_ffn_experts + 2
top_k = 2
rope_theta = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        inner = num_heads * head_dim
        self.qkv = nn.Linear(d_model, 3 * inner, bias=False)
        self.o_proj = nn.Linear(inner, d_model, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, num_heads, head_dim).permute(2, 0, 3, 1, 4)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(o.transpose(1, 2).reshape(b, t, -1))


class MoEPlusPlus(nn.Module):
    def __init__(self, first):
        super().__init__()
        self.router = nn.Linear(d_model, num_experts, bias=False)
        self.gate_residual = None if first else nn.Linear(num_experts, num_experts, bias=False)
        self.w_gate_up = nn.Parameter(torch.randn(num_ffn_experts, d_model, 2 * d_ff) * d_model ** -0.5)
        self.w_down = nn.Parameter(torch.randn(num_ffn_experts, d_ff, d_model) * d_ff ** -0.5)
        self.const_gate = nn.Parameter(torch.randn(num_const_experts, d_model, 2) * d_model ** -0.5)
        self.const_vec = nn.Parameter(torch.randn(num_const_experts, d_model) * 0.5)

    def forward(self, x, prev_logits):
        b, t, d = x.shape
        x = x.reshape(b * t, d)
        # 1. pathway-aware router with the gating residual
        logits = self.router(x)
        if self.gate_residual is not None:
            logits = logits + self.gate_residual(prev_logits)
        probs = torch.softmax(logits, dim=-1)
        top_w, top_e = probs.topk(top_k, dim=-1)  # (n, k)
        # 2. FFN experts: dropless grouped GEMM over the assignments that chose one
        flat_e = top_e.reshape(-1)
        order = torch.argsort(flat_e, stable=True)
        tokens_per_expert = torch.bincount(flat_e, minlength=num_experts)
        n_ffn = int(tokens_per_expert[:num_ffn_experts].sum())
        order = order[:n_ffn]  # FFN experts sort first; the rest go to zero-computation experts
        token_idx = order // top_k
        x_sorted = x[token_idx]
        w_sorted = top_w.reshape(-1)[order]
        outs = []
        start = 0
        for e, n in enumerate(tokens_per_expert[:num_ffn_experts].tolist()):
            rows = x_sorted[start:start + n]
            gate, up = (rows @ self.w_gate_up[e]).chunk(2, dim=-1)
            outs.append((F.silu(gate) * up) @ self.w_down[e])
            start += n
        y = x.new_zeros(b * t, d).index_add(0, token_idx, torch.cat(outs, dim=0) * w_sorted[:, None])
        # 3. zero-computation experts from the dense gate matrix (the zero expert adds nothing)
        dense = torch.zeros_like(probs).scatter(1, top_e, top_w)
        y = y + dense[:, copy_idx, None] * x
        alpha = torch.softmax(torch.einsum("nd,cdk->nck", x, self.const_gate), dim=-1)  # (n, const, 2)
        const_out = alpha[..., 0:1] * x[:, None, :] + alpha[..., 1:2] * self.const_vec[None]
        y = y + (dense[:, const_start:, None] * const_out).sum(1)
        return y.reshape(b, t, d), logits


class Block(nn.Module):
    def __init__(self, first):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.attn = Attention()
        self.norm2 = RMSNorm(d_model)
        self.moe = MoEPlusPlus(first)

    def forward(self, x, cos, sin, prev_logits):
        x = x + self.attn(self.norm1(x), cos, sin)
        y, logits = self.moe(self.norm2(x), prev_logits)
        return x + y, logits


class Model(nn.Module):
    def __init__(self, vocab_size, num_layers):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block(first=i == 0) for i in range(num_layers))
        self.norm = RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        inv_freq = 1.0 / rope_theta ** (torch.arange(0, head_dim, 2).float() / head_dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        freqs = torch.outer(torch.arange(t, device=input_ids.device, dtype=torch.float32), self.inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)
        cos, sin = emb.cos(), emb.sin()
        x = self.embed(input_ids)
        logits = None
        for block in self.blocks:
            x, logits = block(x, cos, sin, logits)
        return self.head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, num_layers]
