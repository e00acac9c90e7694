"""DeepSeek Sparse Attention (DSA, DeepSeek-V3.2, 2025): a lightning indexer picks, for every query, the top-k
past tokens, and multi-head latent attention (MLA) in its weight-absorbed, multi-query form attends only to
those, gathered per query. Plain-torch reference of one DSA attention layer on a prefill (causal), with the top-k
selection done by torch.topk and the sparse attention by an explicit gather of the selected latent keys / values
(no dense T x T attention matrix in the main attention; the indexer's scores are T x T, as in the paper).

 1. Queries through a low-rank bottleneck: q_r = RMSNorm(W_qa x) (shared with the indexer); per head
    q = W_qb q_r = [q_nope (32), q_rope (16)], RoPE on q_rope (interleaved pairs, as DeepSeek's MLA).
 2. Keys / values as one latent per token: [c_kv (64), k_rope (16)] = W_kva x, c_kv RMS-normalised, RoPE on
    k_rope (shared by all heads). Weight absorption: q_nope is mapped into the latent space by the key half of
    W_kvb (q_lat = q_nope W_uk, per head), so every head attends to the same latent keys [c_kv, k_rope] and
    values c_kv (MQA over 80-dim keys, 64-dim values).
 3. Lightning indexer (its own small heads): q_I = W_Iq q_r (4 heads x 32), k_I = LayerNorm(W_Ik x) (one 32-dim
    key per token, shared by the indexer heads), RoPE on the first 16 dims of both in the half-split layout (the
    indexer's, unlike MLA's), per-head weights w = W_Iw x / sqrt(4); index score
    I[t, s] = sum_h w[t, h] * ReLU(q_I[t, h] . k_I[s] / sqrt(32)), future tokens -inf, and the top-k (k = 32)
    positions per query are kept (the first 31 queries have fewer than k past tokens: the surplus picks are
    future positions, masked out in step 4).
 4. Sparse attention: for query t, gather the latent keys / values of its k selected positions
    (B, T, k, 80 / 64), scores = (q_lat . c_kv + q_rope . k_rope) / sqrt(48) over those k only, positions > t
    masked, softmax, o_lat = p . c_kv; then the value half of W_kvb maps o_lat back per head (W_uv), and W_o.
Left out: the FP8 quantisation and Hadamard rotation of the indexer (orthogonal, so it leaves q_I . k_I
unchanged before quantisation), YaRN scaling, the KV cache; RoPE theta 1e4. Inits: PyTorch defaults.
Sizes (published DeepSeek-V3.2: hidden 7168, 128 heads, q_lora 1536, kv_lora 512, nope / rope / v dims
128 / 64 / 128, indexer 64 heads x 128 with 64 RoPE dims, top-2048): d_model 128, 4 heads, q_lora 64, kv_lora 64,
nope / rope / v 32 / 16 / 32, indexer 4 heads x 32 with 16 RoPE dims, top-32 of 128 tokens.

Input: x (2, 128, 128) = (batch, seq, d_model). Output: (2, 128, 128).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
d_model = 128
n_heads = 4
q_lora_rank = 64
kv_lora_rank = 64
qk_nope_head_dim = 32
qk_rope_head_dim = 16
v_head_dim = 32
index_n_heads = 4
index_head_dim = 32
index_topk = 32
rope_theta = 10000.0


def rope_tables(seq, dim, theta):
    inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    freqs = torch.outer(torch.arange(seq, dtype=torch.float32), inv_freq)  # (T, dim/2)
    return freqs.cos(), freqs.sin()


def rope_interleaved(x, cos, sin):
    # pairs (x0, x1), (x2, x3), ... rotated; x (..., T, [H,] dim) with cos / sin (T, dim/2) broadcast on T
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
    return out.flatten(-2)


def rope_half(x, cos, sin):
    # halves (x[:d/2], x[d/2:]) rotated against each other
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class Model(nn.Module):
    def __init__(self, d_model, n_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim,
                 v_head_dim, index_n_heads, index_head_dim, index_topk, seq_len):
        super().__init__()
        self.h, self.nope, self.rope, self.dv = n_heads, qk_nope_head_dim, qk_rope_head_dim, v_head_dim
        self.kv_lora = kv_lora_rank
        self.ih, self.idim, self.topk = index_n_heads, index_head_dim, index_topk
        self.wq_a = nn.Linear(d_model, q_lora_rank, bias=False)
        self.q_norm = nn.RMSNorm(q_lora_rank, eps=1e-6)
        self.wq_b = nn.Linear(q_lora_rank, n_heads * (qk_nope_head_dim + qk_rope_head_dim), bias=False)
        self.wkv_a = nn.Linear(d_model, kv_lora_rank + qk_rope_head_dim, bias=False)
        self.kv_norm = nn.RMSNorm(kv_lora_rank, eps=1e-6)
        self.wkv_b = nn.Linear(kv_lora_rank, n_heads * (qk_nope_head_dim + v_head_dim), bias=False)
        self.wo = nn.Linear(n_heads * v_head_dim, d_model, bias=False)
        # lightning indexer
        self.idx_wq = nn.Linear(q_lora_rank, index_n_heads * index_head_dim, bias=False)
        self.idx_wk = nn.Linear(d_model, index_head_dim, bias=False)
        self.idx_k_norm = nn.LayerNorm(index_head_dim, eps=1e-6)
        self.idx_weights = nn.Linear(d_model, index_n_heads, bias=False)
        cos, sin = rope_tables(seq_len, qk_rope_head_dim, rope_theta)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.softmax_scale = (qk_nope_head_dim + qk_rope_head_dim) ** -0.5

    def indexer(self, x, q_r):
        B, T, _ = x.shape
        cos, sin = self.cos[:T, None, :], self.sin[:T, None, :]  # (T, 1, rope/2)
        q = self.idx_wq(q_r).view(B, T, self.ih, self.idim)
        q = torch.cat([rope_half(q[..., : self.rope], cos, sin), q[..., self.rope:]], dim=-1)
        k = self.idx_k_norm(self.idx_wk(x))                                    # (B, T, idim)
        k = torch.cat([rope_half(k[..., : self.rope], cos[:, 0], sin[:, 0]), k[..., self.rope:]], dim=-1)
        w = self.idx_weights(x) * self.ih ** -0.5                              # (B, T, ih)
        scores = F.relu(torch.einsum("bthd,bsd->bths", q, k) * self.idim ** -0.5)
        index = torch.einsum("bths,bth->bts", scores, w)                       # (B, T, T)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        index = index.masked_fill(~causal, float("-inf"))
        return index.topk(min(self.topk, T), dim=-1).indices                  # (B, T, k)

    def forward(self, x):
        B, T, _ = x.shape
        cos, sin = self.cos[:T], self.sin[:T]
        q_r = self.q_norm(self.wq_a(x))
        q = self.wq_b(q_r).view(B, T, self.h, self.nope + self.rope)
        q_nope, q_pe = q.split([self.nope, self.rope], dim=-1)
        q_pe = rope_interleaved(q_pe, cos[:, None, :], sin[:, None, :])
        kv = self.wkv_a(x)
        c_kv, k_pe = kv.split([self.kv_lora, self.rope], dim=-1)
        c_kv = self.kv_norm(c_kv)                                               # (B, T, kv_lora)
        k_pe = rope_interleaved(k_pe, cos, sin)                                 # (B, T, rope)
        w_kvb = self.wkv_b.weight.view(self.h, self.nope + self.dv, self.kv_lora)
        w_uk, w_uv = w_kvb[:, : self.nope], w_kvb[:, self.nope:]
        q_lat = torch.einsum("bthd,hdc->bthc", q_nope, w_uk)                   # (B, T, H, kv_lora)

        idx = self.indexer(x, q_r)                                              # (B, T, k)
        batch = torch.arange(B, device=x.device)[:, None, None]
        kv_sel = c_kv[batch, idx]                                               # (B, T, k, kv_lora)
        pe_sel = k_pe[batch, idx]                                               # (B, T, k, rope)
        scores = (torch.einsum("bthc,btkc->bthk", q_lat, kv_sel)
                  + torch.einsum("bthr,btkr->bthk", q_pe, pe_sel)) * self.softmax_scale
        valid = idx <= torch.arange(T, device=x.device)[None, :, None]          # selected position <= t
        scores = scores.masked_fill(~valid[:, :, None, :], float("-inf"))
        p = scores.softmax(dim=-1)
        o_lat = torch.einsum("bthk,btkc->bthc", p, kv_sel)
        o = torch.einsum("bthc,hvc->bthv", o_lat, w_uv)                         # (B, T, H, dv)
        return self.wo(o.reshape(B, T, self.h * self.dv))


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, n_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
            index_n_heads, index_head_dim, index_topk, seq_len]
