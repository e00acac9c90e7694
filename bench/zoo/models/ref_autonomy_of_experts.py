"""Autonomy-of-Experts MoE (Lv, Xie, Qian, Wu, Sun, Kang, Wang & Yan 2025, "Autonomy-of-Experts Models", ICML 2025,
arXiv 2501.13074), in plain PyTorch: a decoder LM whose feed-forward layers are router-free mixtures of experts in
which the experts select THEMSELVES. Each SwiGLU expert's gate matrix W_g^e (d x d_ffn) is factorised as
W_down^e (d x d_low) W_up^e (d_low x d_ffn); every token first runs the cheap down-projections of ALL experts at once
(one x @ W_down, W_down = [W_down^1 .. W_down^E] of shape d x (E d_low)), and the L2 norm of each expert's d_low
activation is that expert's self-assessed logit: scores = softmax_e(||x W_down^e||), the top-k scores pick the
experts and are their mixing weights (not renormalised, as in the authors' code). Only the chosen experts continue,
REUSING their cached low-rank activation a_e: y_e = (SiLU(a_e W_up^e) * (x W_in^e)) W_out^e, and the layer outputs
sum_e score_e y_e. Tokens are dispatched expert by expert (gather the tokens that chose expert e, run it on them,
scatter-add the weighted results), the dropless loop that the top-k choice makes data-dependent. No router weights
and no load-balancing state exist in the forward. Attention: causal multi-head with RoPE (theta 1e4). Blocks:
pre-RMSNorm attention and pre-RMSNorm AoE MoE, each residual; final RMSNorm; untied LM head.

Sizes: vocab 1000, d_model 64, 2 layers, 4 heads of 16; 8 experts, top-2, d_low 16, d_ffn 64 per expert; batch
2 x 64 tokens.
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
num_heads = 4
head_dim = 16
num_experts = 8
top_k = 2
d_low = 16
d_ffn = 64
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
        self.qkv = nn.Linear(d_model, 3 * num_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * head_dim, d_model, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, num_heads, head_dim).permute(2, 0, 3, 1, 4)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(b, t, num_heads * head_dim))


class AoEMoE(nn.Module):
    def __init__(self):
        super().__init__()
        scale = d_model ** -0.5
        self.w_down = nn.Parameter(torch.randn(d_model, num_experts * d_low) * scale)  # factorised gate, first half
        self.w_up = nn.Parameter(torch.randn(num_experts, d_low, d_ffn) * d_low ** -0.5)  # factorised gate, second
        self.w_in = nn.Parameter(torch.randn(num_experts, d_model, d_ffn) * scale)
        self.w_out = nn.Parameter(torch.randn(num_experts, d_ffn, d_model) * d_ffn ** -0.5)

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, d_model)
        acts = (x @ self.w_down).view(-1, num_experts, d_low)  # every expert's low-rank activation
        scores = torch.linalg.vector_norm(acts, dim=-1).softmax(dim=-1)  # (n, E): self-evaluation
        weights, experts = scores.topk(top_k, dim=-1)
        out = torch.zeros_like(x)
        for e in range(num_experts):
            token_idx, slot = torch.where(experts == e)
            if token_idx.numel() == 0:
                continue
            a = acts[token_idx, e]  # cached low-rank activation, reused
            h = F.silu(a @ self.w_up[e]) * (x[token_idx] @ self.w_in[e])
            y = (h @ self.w_out[e]) * weights[token_idx, slot, None]
            out.index_add_(0, token_idx, y)
        return out.view(shape)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.attn = Attention()
        self.norm2 = RMSNorm(d_model)
        self.moe = AoEMoE()

    def forward(self, x, cos, sin):
        x = x + self.attn(self.norm1(x), cos, sin)
        return x + self.moe(self.norm2(x))


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
