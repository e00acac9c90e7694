"""Mixture of Sparse Attention (MoSA) (Piekos, Csordas & Schmidhuber 2025, "Mixture of Sparse Attention:
Content-Based Learnable Sparse Attention via Expert-Choice Routing", arXiv 2505.00315), readable reference of a small
causal LM whose attention layers are the paper's hybrid: a few dense heads plus many MoSA heads, written after the
paper's equations.

Each MoSA head h is an "expert" that CHOOSES its tokens (expert-choice routing, as in Mixture-of-Depths, but per
attention head): with X (T, d) the layer input and k = T / rho tokens per head (sparsity rho),
    r      = sigmoid(X w_r^h)                               router score of every token, (T,)
    I      = TopK(r, k), sorted ascending                   the head's k tokens, kept in sequence order
    X_s    = X[I]                                           gathered tokens, (k, d)
    Q, K, V = X_s W_q^h, X_s W_k^h, X_s W_v^h               projections ONLY for the selected tokens
    RoPE at the tokens' ORIGINAL positions I
    M_ij   = 0 if I_i >= I_j else -inf                      causal mask from the original positions
    A      = softmax(Q K^T / sqrt(d_h) + M) V               a dense (k x k) attention among the selected tokens
    Y^h    = scatter(I, r[I] * (A W_o^h))                   output written back to the selected positions, scaled
                                                            by the router score (this is what trains the router),
                                                            zero for tokens the head did not pick
and the layer output is the sum over heads (scatter_add into a (T, d) buffer) plus the output of the dense heads
(ordinary causal softmax attention with RoPE). Cost per MoSA head O(k^2) instead of O(T^2); a token may be picked by
any number of heads, including none. As in the paper's perplexity experiments, the top-k runs over the whole
sequence (the selection of a position can depend on later tokens); the attention itself is causal.
LM (Llama layout): token embedding; layers of x <- x + Attn(RMSNorm(x)), x <- x + SwiGLU(RMSNorm(x)); final RMSNorm;
untied LM head. Bias-free projections, RoPE theta 10000 (rotate-half), RMSNorm eps 1e-6, inits N(0, 0.02^2) except
the routers, N(0, 1 / hidden) (unit-variance router logits, so the random top-k choices are not near-ties).
Sizes: seq 128, hidden 64, per layer 2 dense heads + 6 MoSA heads of dim 16, sparsity rho 4 (k = 32 tokens per MoSA
head; the paper's hybrids keep a few dense heads and use rho up to 256 at T = 1024), 2 layers, MLP 176, vocab 512.
Input: token ids (2, 128). Output: logits (2, 128, 512).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
vocab_size = 512
hidden_size = 64
head_dim = 16
num_dense_heads = 2
num_mosa_heads = 6
sparsity = 4
num_layers = 2
intermediate_size = 176
rope_theta = 10000.0
initializer_range = 0.02


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rope_cos_sin(positions, head_dim, theta):
    """positions: integer tensor of any shape -> cos, sin of shape (*positions.shape, head_dim)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=positions.device).float() / head_dim))
    freqs = positions.float()[..., None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def apply_rope(x, cos, sin):
    return x * cos + rotate_half(x) * sin


class DenseHeads(nn.Module):
    """Ordinary causal multi-head attention with RoPE."""

    def __init__(self, hidden_size, num_heads, head_dim, rope_theta):
        super().__init__()
        self.num_heads, self.head_dim, self.rope_theta = num_heads, head_dim, rope_theta
        self.q_proj = nn.Linear(hidden_size, num_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * head_dim, hidden_size, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
        cos, sin = rope_cos_sin(torch.arange(T, device=x.device), self.head_dim, self.rope_theta)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        scores = (q @ k.transpose(-1, -2)) * self.head_dim ** -0.5
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        o = torch.softmax(scores, dim=-1) @ v
        return self.o_proj(o.transpose(1, 2).reshape(B, T, -1))


class MoSAHeads(nn.Module):
    """num_heads expert-choice sparse attention heads, each with its own router and q / k / v / o weights."""

    def __init__(self, hidden_size, num_heads, head_dim, sparsity, rope_theta):
        super().__init__()
        self.num_heads, self.head_dim, self.sparsity, self.rope_theta = num_heads, head_dim, sparsity, rope_theta
        self.router = nn.Parameter(torch.empty(num_heads, hidden_size))  # w_r^h
        self.w_q = nn.Parameter(torch.empty(num_heads, hidden_size, head_dim))
        self.w_k = nn.Parameter(torch.empty(num_heads, hidden_size, head_dim))
        self.w_v = nn.Parameter(torch.empty(num_heads, hidden_size, head_dim))
        self.w_o = nn.Parameter(torch.empty(num_heads, head_dim, hidden_size))

    def forward(self, x):
        B, T, C = x.shape
        H, D = self.num_heads, self.head_dim
        k_sel = max(1, T // self.sparsity)

        # 1. Router: every head scores every token; each head keeps its top-k tokens, in sequence order.
        r = torch.sigmoid(torch.einsum("btc,hc->bht", x, self.router))  # (B, H, T)
        _, idx = torch.topk(r, k_sel, dim=-1)  # (B, H, k)
        idx, _ = torch.sort(idx, dim=-1)
        r_sel = torch.gather(r, -1, idx)  # (B, H, k)

        # 2. Gather the selected tokens per head and project only those.
        x_sel = torch.gather(x.unsqueeze(1).expand(B, H, T, C), 2, idx.unsqueeze(-1).expand(B, H, k_sel, C))
        q = torch.einsum("bhkc,hcd->bhkd", x_sel, self.w_q)
        k = torch.einsum("bhkc,hcd->bhkd", x_sel, self.w_k)
        v = torch.einsum("bhkc,hcd->bhkd", x_sel, self.w_v)

        # 3. RoPE at the original positions, causal mask from the original positions.
        cos, sin = rope_cos_sin(idx, D, self.rope_theta)  # (B, H, k, D)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        scores = (q @ k.transpose(-1, -2)) * D ** -0.5  # (B, H, k, k)
        causal = idx.unsqueeze(-1) >= idx.unsqueeze(-2)
        scores = scores.masked_fill(~causal, float("-inf"))
        o = torch.softmax(scores, dim=-1) @ v  # (B, H, k, D)

        # 4. Output projection, scaled by the router score, scattered back and summed over heads.
        o = torch.einsum("bhkd,hdc->bhkc", o, self.w_o) * r_sel.unsqueeze(-1)
        y = torch.zeros_like(x)
        y.scatter_add_(1, idx.reshape(B, H * k_sel, 1).expand(B, H * k_sel, C), o.reshape(B, H * k_sel, C))
        return y


class HybridAttention(nn.Module):
    def __init__(self, hidden_size, head_dim, num_dense_heads, num_mosa_heads, sparsity, rope_theta):
        super().__init__()
        self.dense = DenseHeads(hidden_size, num_dense_heads, head_dim, rope_theta)
        self.mosa = MoSAHeads(hidden_size, num_mosa_heads, head_dim, sparsity, rope_theta)

    def forward(self, x):
        return self.dense(x) + self.mosa(x)


class SwiGLU(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, hidden_size, head_dim, num_dense_heads, num_mosa_heads, sparsity, intermediate_size,
                 rope_theta):
        super().__init__()
        self.attn_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.attn = HybridAttention(hidden_size, head_dim, num_dense_heads, num_mosa_heads, sparsity, rope_theta)
        self.mlp_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.mlp = SwiGLU(hidden_size, intermediate_size)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Model(nn.Module):
    def __init__(self, vocab_size, hidden_size, head_dim, num_dense_heads, num_mosa_heads, sparsity, num_layers,
                 intermediate_size, rope_theta, initializer_range):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([
            DecoderLayer(hidden_size, head_dim, num_dense_heads, num_mosa_heads, sparsity, intermediate_size,
                         rope_theta)
            for _ in range(num_layers)
        ])
        self.norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=initializer_range)
            elif isinstance(module, MoSAHeads):
                for param in (module.w_q, module.w_k, module.w_v, module.w_o):
                    nn.init.normal_(param, mean=0.0, std=initializer_range)
                # router N(0, 1 / hidden): unit-variance logits on the RMS-normalised input, so the top-k is decisive
                nn.init.normal_(module.router, mean=0.0, std=hidden_size ** -0.5)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, hidden_size, head_dim, num_dense_heads, num_mosa_heads, sparsity, num_layers,
            intermediate_size, rope_theta, initializer_range]
