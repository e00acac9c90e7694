"""MoBA, Mixture of Block Attention (Lu et al. 2025, "MoBA: Mixture of Block Attention for Long-Context LLMs",
Moonshot AI), readable reference of a small Llama-style causal LM whose every attention layer is MoBA, after the
paper's Algorithm 1 and the official MoonshotAI/MoBA `moba_naive.py` (its per-sequence varlen loop written as a
batch dimension).

MoBA applies the mixture-of-experts idea to attention: the keys / values of the sequence are split into blocks of
B_s consecutive tokens, and each query attends only to the k blocks a parameter-free gate picks for it. Per head,
with q, k, v after RoPE:
    block representative  kbar_n = mean_{j in block n} k_j                 (mean-pooled keys, a Python loop over
                                                                            the blocks as in the reference)
    gate score            s_{t,n} = q_t . kbar_n                           (float32, no scaling)
    block-level causality: s_{t,n} = -inf for n > block(t) (future blocks are never candidates) and
                          s_{t,n} = +inf for n = block(t) (every query is always routed to its own block);
    selection             I_t = top-k_n s_{t,n}  (k = 3 counts the own block: own block + the 2 best past blocks)
    attention             o_t = sum_{j <= t, block(j) in I_t} softmax_j(q_t . k_j / sqrt(d)) v_j
i.e. a dense causal softmax over the keys of the selected blocks only (causal inside the own block), written as a
block mask (scatter of the top-k indices, repeat_interleave to tokens, AND the causal mask) added as 0 / -inf to the
logits. A query in an early block with fewer than k - 1 past blocks simply attends to all of its past (in the naive
reference the extra picks land on -inf future blocks, which the causal mask removes; here they are dropped with the
same result). Softmax in float32.
LM (Llama layout, as the paper's models): token embedding; layers of x <- x + W_o MoBA(RoPE(W_q h), RoPE(W_k h),
W_v h) with h = RMSNorm(x), x <- x + W_down(SiLU(W_gate h) * W_up h) with h = RMSNorm(x); final RMSNorm; untied LM
head. Bias-free projections, RoPE theta 10000 (rotate-half), RMSNorm eps 1e-6, inits N(0, 0.02^2). The paper's
layer-wise hybrid (last layers full attention, for SFT) is not used: every layer is MoBA.
Sizes: the paper's scaling-law runs use an 8192 context with block size 512 and top-k 3 (16 blocks, 81.25%
sparsity for the last queries); here seq 256 with block size 16 and top-k 3 (the same 16 blocks and sparsity).
Model: hidden 64, 4 heads of 16, 2 layers, MLP 176, vocab 512 (this file's sizes).

Input: token ids (2, 256). Output: logits (2, 256, 512).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 256
vocab_size = 512
hidden_size = 64
num_heads = 4
num_layers = 2
intermediate_size = 176
block_size = 16  # moba_chunk_size; paper 512 at 8K context
top_k = 3  # moba_topk, including the query's own block; as in the paper
rope_theta = 10000.0
initializer_range = 0.02


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rope_cos_sin(seq_len, head_dim, theta, device):
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    freqs = torch.outer(torch.arange(seq_len, device=device).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()  # (T, head_dim)


def moba_attention(q, k, v, block_size, top_k):
    """q, k, v: (B, H, T, D), RoPE already applied. Returns (B, H, T, D)."""
    B, H, T, D = q.shape
    num_blocks = math.ceil(T / block_size)
    scale = D ** -0.5

    # 1. Mean-pooled key of every block: (B, H, N, D).
    block_keys = []
    for n in range(num_blocks):
        block_keys.append(k[:, :, n * block_size:(n + 1) * block_size].mean(dim=2))
    block_keys = torch.stack(block_keys, dim=2)

    # 2. Gate: affinity of every query with every block, in float32.
    gate = torch.einsum("bhtd,bhnd->bhtn", q.float(), block_keys.float())  # (B, H, T, N)

    # 3. Block-level causality: block n is a gate candidate only for queries in later blocks; the query's own
    #    block is always selected.
    for n in range(num_blocks):
        gate[:, :, :(n + 1) * block_size, n] = float("-inf")
        gate[:, :, n * block_size:(n + 1) * block_size, n] = float("inf")

    # 4. Top-k blocks per query (own block + the top-(k - 1) past blocks).
    _, topk_idx = torch.topk(gate, k=min(top_k, num_blocks), dim=-1)
    selected = torch.zeros_like(gate, dtype=torch.bool).scatter_(-1, topk_idx, True)
    selected = selected & (gate > float("-inf"))  # drop picks that fell on not-yet-available (future) blocks

    # 5. Token-level mask: the selected blocks' keys, causal inside the own block.
    key_mask = selected.repeat_interleave(block_size, dim=-1)[..., :T]  # (B, H, T, T)
    causal = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    key_mask = key_mask & causal

    # 6. Softmax attention over the selected keys only.
    scores = torch.einsum("bhtd,bhsd->bhts", q.float(), k.float()) * scale
    scores = scores.masked_fill(~key_mask, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhts,bhsd->bhtd", probs, v.float())
    return out.to(q.dtype)


class MoBAAttention(nn.Module):
    def __init__(self, hidden_size, num_heads, block_size, top_k, rope_theta):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.block_size = block_size
        self.top_k = top_k
        self.rope_theta = rope_theta
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, x):
        B, T, C = x.shape
        H, D = self.num_heads, self.head_dim
        q = self.q_proj(x).view(B, T, H, D).transpose(1, 2)
        k = self.k_proj(x).view(B, T, H, D).transpose(1, 2)
        v = self.v_proj(x).view(B, T, H, D).transpose(1, 2)
        cos, sin = rope_cos_sin(T, D, self.rope_theta, x.device)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        o = moba_attention(q, k, v, self.block_size, self.top_k)
        return self.o_proj(o.transpose(1, 2).reshape(B, T, C))


class SwiGLU(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, hidden_size, num_heads, intermediate_size, block_size, top_k, rope_theta):
        super().__init__()
        self.attn_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.attn = MoBAAttention(hidden_size, num_heads, block_size, top_k, rope_theta)
        self.mlp_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.mlp = SwiGLU(hidden_size, intermediate_size)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Model(nn.Module):
    def __init__(self, vocab_size, hidden_size, num_heads, num_layers, intermediate_size, block_size, top_k,
                 rope_theta, initializer_range):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([
            DecoderLayer(hidden_size, num_heads, intermediate_size, block_size, top_k, rope_theta)
            for _ in range(num_layers)
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
    return [vocab_size, hidden_size, num_heads, num_layers, intermediate_size, block_size, top_k, rope_theta,
            initializer_range]
