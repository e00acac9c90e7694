"""Mixture-of-Head attention (Jin, Zhu, Yuan & Yan 2024, "MoH: Multi-Head Attention as Mixture-of-Head Attention",
arXiv 2410.11842, Skywork AI), in plain PyTorch: a decoder LM (MoH-LLaMA style) whose attention heads are treated as
experts that each token routes to. Multi-head attention is written in its summation form, sum_i H^i W_O^i, and MoH
replaces it by the weighted sum sum_i g_i H^i W_O^i with per-token head gates from a two-stage router:
  - shared heads (always on): g_i = alpha_1 * h_s * softmax(W_s x)_i over the h_s shared heads;
  - routed heads: p = softmax(W_r x) over the h_r routed heads, only the top-k are kept, renormalised to sum 1 and
    scaled by k: g_i = alpha_2 * k * p_i / sum_topk(p) for the chosen heads, 0 for the others;
  - the balance between the two kinds is itself per token: [alpha_1, alpha_2] = 2 * softmax(W_h x).
So each token mixes a different subset of heads with learned, input-dependent weights (a dense model for the shared
heads, an MoE over the routed ones). As in the authors' code, all heads are computed densely (causal softmax attention
with RoPE, theta 5e5) and the gates, zero for unselected routed heads, scale each head's output before the output
projection. Blocks: pre-RMSNorm MoH attention and pre-RMSNorm SwiGLU, each residual; final RMSNorm; untied LM head.

Sizes: vocab 1000, d_model 64, 2 layers, 8 heads of 16 (2 shared, 6 routed with top-3: 5 of 8 heads active per
token), SwiGLU 176; batch 2 x 64 tokens.
Input: input_ids (2, 64). Output: logits (2, 64, 1000).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
vocab_size = 1000
d_model = 64
num_layers = 2
num_heads = 8
head_dim = 16
shared_heads = 2
routed_heads = num_heads - shared_heads
routed_top_k = 3
mlp_hidden = 176
rope_theta = 500000.0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class MoHAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * num_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * head_dim, d_model, bias=False)
        self.w_shared = nn.Linear(d_model, shared_heads, bias=False)  # W_s
        self.w_routed = nn.Linear(d_model, routed_heads, bias=False)  # W_r
        self.w_balance = nn.Linear(d_model, 2, bias=False)  # W_h

    def head_gates(self, x):
        """x: (b, t, d) -> per-token gates (b, t, num_heads), shared heads first."""
        p = self.w_routed(x).softmax(dim=-1)
        top, idx = p.topk(routed_top_k, dim=-1)
        routed = torch.zeros_like(p).scatter(-1, idx, top)
        routed = routed / routed.sum(-1, keepdim=True).clamp_min(torch.finfo(p.dtype).eps) * routed_top_k
        shared = self.w_shared(x).softmax(dim=-1) * shared_heads
        alpha = self.w_balance(x).softmax(dim=-1) * 2
        return torch.cat([alpha[..., :1] * shared, alpha[..., 1:] * routed], dim=-1)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, num_heads, head_dim).permute(2, 0, 3, 1, 4)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        heads = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2)  # (b, t, h, d)
        heads = heads * self.head_gates(x)[..., None]
        return self.o_proj(heads.reshape(b, t, num_heads * head_dim))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.attn = MoHAttention()
        self.norm2 = RMSNorm(d_model)
        self.gate_up = nn.Linear(d_model, 2 * mlp_hidden, bias=False)
        self.down = nn.Linear(mlp_hidden, d_model, bias=False)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.norm1(x), cos, sin)
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block() for _ in range(num_layers))
        self.norm = RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        inv_freq = 1.0 / rope_theta ** (torch.arange(0, head_dim, 2).float() / head_dim)
        freqs = torch.outer(torch.arange(seq_len).float(), inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        cos, sin = self.cos[:t], self.sin[:t]
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return []
