"""Tensor Product Attention (Zhang, Liu, Yuan, Qin, Yuan, Gu & Yao, 2025, "Tensor Product Attention Is All You Need";
the T6 model) in plain PyTorch: a causal language model whose queries, keys and values are sums of rank-1 tensor
products built from the token itself, so the KV cache holds small factors instead of full heads. For a token x_t, with
h heads of dimension d:
    Q_t = 1/R_Q sum_r a^Q_r(x_t) (x) b^Q_r(x_t),   K_t = 1/R_K sum_r a^K_r(x_t) (x) b^K_r(x_t),   same for V_t
    a^*_r(x) = W^{a*}_r x in R^h (a weight per head),   b^*_r(x) = W^{b*}_r x in R^d (a vector shared by all heads)
so each of Q_t, K_t, V_t (h x d) is A(x_t)^T B(x_t) / R with A (R x h) and B (R x d) from two Linears. RoPE acts on
the d axis only, so it commutes with the product: it is applied to the b factors of Q and K (the cache keeps the
pre-rotated B_K). Attention never forms K or V: with the materialised query of each token (cheap, R_Q = 6 products),
    logit_{t,s,i} = 1/R_K sum_r a^K_{r,i}(x_s) (Q_{t,i} . RoPE_s(b^K_r(x_s))) / sqrt(d)
    o_{t,i} = 1/R_V sum_r sum_{s<=t} P_{t,s,i} a^V_{r,i}(x_s) b^V_r(x_s)
i.e. R_K query-by-factor score matrices mixed with per-head key coefficients, a causal softmax, and R_V value-factor
matmuls of the head-reweighted probabilities (the factorised form used for decoding from the factor cache, here run
over the whole causal sequence). As in T6 each head output gets an RMSNorm (the "group norm" sub-layer) before the
output projection. Blocks: pre-RMSNorm TPA and pre-RMSNorm SwiGLU (8/3 width), both residual; final RMSNorm and an
untied LM head.

Sizes: vocab 1000, d_model 64, 2 layers, 4 heads of 16, ranks R_Q 6, R_K 2, R_V 2 (the paper's T6 default), RoPE theta
1e4, SwiGLU 170; batch 2 x 64 tokens (the paper's models: 124M to 1.5B parameters).
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
q_rank = 6
k_rank = 2
v_rank = 2
rope_theta = 10000.0
mlp_hidden = int(8 / 3 * d_model)  # 170


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, cos, sin):
    """Rotate-half RoPE on the last dim of x (..., t, r, d) with cos / sin (t, d / 2)."""
    x1, x2 = x.chunk(2, dim=-1)
    cos, sin = cos[:, None], sin[:, None]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class TensorProductAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.a_q = nn.Linear(d_model, q_rank * num_heads, bias=False)
        self.b_q = nn.Linear(d_model, q_rank * head_dim, bias=False)
        self.a_k = nn.Linear(d_model, k_rank * num_heads, bias=False)
        self.b_k = nn.Linear(d_model, k_rank * head_dim, bias=False)
        self.a_v = nn.Linear(d_model, v_rank * num_heads, bias=False)
        self.b_v = nn.Linear(d_model, v_rank * head_dim, bias=False)
        self.head_norm = RMSNorm(head_dim, eps=1e-5)
        self.o_proj = nn.Linear(num_heads * head_dim, d_model, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        a_q = self.a_q(x).view(b, t, q_rank, num_heads)
        b_q = rope(self.b_q(x).view(b, t, q_rank, head_dim), cos, sin)
        a_k = self.a_k(x).view(b, t, k_rank, num_heads)
        b_k = rope(self.b_k(x).view(b, t, k_rank, head_dim), cos, sin)  # the cached, pre-rotated key factors
        a_v = self.a_v(x).view(b, t, v_rank, num_heads)
        b_v = self.b_v(x).view(b, t, v_rank, head_dim)
        # queries: (b, h, t, d) = 1/R_Q sum_r a_q[r, h] b_q[r, :]
        q = torch.einsum("btrh,btrd->bhtd", a_q, b_q) / q_rank
        # scores from the key factors: sum_r a_k[s, r, h] (q_t,h . b_k[s, r])
        qb = torch.einsum("bhtd,bsrd->bhrts", q, b_k)
        logits = torch.einsum("bhrts,bsrh->bhts", qb, a_k) * (head_dim ** -0.5 / k_rank)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        probs = torch.softmax(logits.masked_fill(~causal, float("-inf")), dim=-1)
        # outputs from the value factors: sum_r (probs * a_v[s, r, h]) @ b_v[s, r]
        weighted = probs[:, :, None] * a_v.permute(0, 3, 2, 1)[:, :, :, None, :]  # (b, h, r, t, s)
        o = torch.einsum("bhrts,bsrd->bthd", weighted, b_v) / v_rank
        o = self.head_norm(o)
        return self.o_proj(o.reshape(b, t, num_heads * head_dim))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.attn = TensorProductAttention()
        self.norm2 = RMSNorm(d_model)
        self.gate = nn.Linear(d_model, mlp_hidden, bias=False)
        self.up = nn.Linear(d_model, mlp_hidden, bias=False)
        self.down = nn.Linear(mlp_hidden, d_model, bias=False)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.norm1(x), cos, sin)
        h = self.norm2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block() for _ in range(num_layers))
        self.norm = RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        inv_freq = 1.0 / (rope_theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        freqs = torch.outer(torch.arange(t, device=input_ids.device, dtype=torch.float32), self.inv_freq)
        cos, sin = freqs.cos(), freqs.sin()
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return []
