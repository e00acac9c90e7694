"""Gated power attention, degree 2, in its chunked form (Manifest AI: Buckman, Gelada & Zhang 2024, "Symmetric Power
Transformers"; Gelada, Buckman, Zhang & Bhaskar 2025, "Scaling Context Requires Rethinking Attention", arXiv
2507.04239, the "power attention" / power-retention layer), in plain PyTorch: a language model of power-attention
mixers and SwiGLU MLPs. The softmax's exp(q . k) is replaced by an even power of the dot product,
    y_i = sum_{j<=i} G_ij (q_i . k_j)^p v_j  /  (sum_{j<=i} G_ij (q_i . k_j)^p + eps),    G_ij = prod_{l=j+1..i} gamma_l,
with p = 2 and a data-dependent scalar forget gate gamma_t = sigmoid(.) per head (G is a decay, as in gated linear
attention; positions come only from it: no RoPE). Because (q . k)^p = <phi(q), phi(k)> with phi the SYMMETRIC tensor
power of the vector (for p = 2 the entries x_a x_b, a <= b, the off-diagonal ones scaled by sqrt 2: d (d + 1) / 2
features instead of the d^2 of x (x) x), the layer is a linear-attention RNN with a matrix state S (d(d+1)/2 x d_v)
and a normaliser state s (d(d+1)/2), whose size is set by p rather than by the context length. The chunked algorithm
(what the paper's kernel computes) mixes the two forms: inside a chunk of C tokens the quadratic form
    A = (Q K^T)^2 * exp(a_i - a_j) * causal,   y_intra = A V,   z_intra = A 1,
with a the in-chunk cumulative log gate; across chunks the expanded state
    y_inter = exp(a_i) phi(q_i)^T S,   z_inter = exp(a_i) phi(q_i)^T s,
    S <- exp(a_C) S + sum_j exp(a_C - a_j) phi(k_j) v_j^T,   s <- exp(a_C) s + sum_j exp(a_C - a_j) phi(k_j),
and y = (y_intra + y_inter) / (z_intra + z_inter + eps). q and k are RMS-normalised per head and scaled by
head_dim^-1/2 (so q . k is O(1) before squaring). Mixer: fused q / k / v / gate projection, the power attention,
per-head RMSNorm of the output, an output projection. Block: pre-RMSNorm mixer and pre-RMSNorm SwiGLU, each residual.

Sizes: vocab 1000, d_model 64, 2 layers, 4 heads of 16 (state 136 x 16 per head), degree 2, chunk 32, SwiGLU 176;
batch 2 x 128 tokens (4 chunks).
Input: input_ids (2, 128). Output: logits (2, 128, 1000).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 128
vocab_size = 1000
d_model = 64
num_layers = 2
num_heads = 4
head_dim = 16
chunk_size = 32
mlp_hidden = 176
eps = 1e-6


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def sym_power2(x):
    """Symmetric second tensor power of the last dim: (..., d) -> (..., d (d + 1) / 2), <phi(q), phi(k)> = (q . k)^2."""
    d = x.shape[-1]
    a, b = torch.triu_indices(d, d, device=x.device)
    weight = torch.where(a == b, 1.0, 2.0).to(x.dtype).sqrt()
    return x[..., a] * x[..., b] * weight


def power_attention_chunked(q, k, v, log_gate, chunk):
    """q, k: (b, h, t, d); v: (b, h, t, e); log_gate: (b, h, t) <= 0. Returns y (b, h, t, e)."""
    b, h, t, d = q.shape
    e = v.shape[-1]
    c = t // chunk
    qc, kc, vc = (x.reshape(b, h, c, chunk, x.shape[-1]) for x in (q, k, v))
    a = log_gate.reshape(b, h, c, chunk).cumsum(-1)  # in-chunk cumulative log gate
    causal = torch.ones(chunk, chunk, dtype=torch.bool, device=q.device).tril()
    decay = torch.exp((a[..., :, None] - a[..., None, :]).masked_fill(~causal, float("-inf")))
    scores = (qc @ kc.transpose(-1, -2)).pow(2) * decay  # (b, h, c, l, s)
    y_intra = scores @ vc
    z_intra = scores.sum(-1)
    phi_q, phi_k = sym_power2(qc), sym_power2(kc)  # (b, h, c, l, D)
    state = q.new_zeros(b, h, phi_q.shape[-1], e)
    norm_state = q.new_zeros(b, h, phi_q.shape[-1])
    ys = []
    for i in range(c):
        a_i = a[:, :, i]
        in_decay = torch.exp(a_i)  # from the chunk start to each token
        y_inter = in_decay[..., None] * (phi_q[:, :, i] @ state)
        z_inter = in_decay * (phi_q[:, :, i] @ norm_state[..., None]).squeeze(-1)
        ys.append((y_intra[:, :, i] + y_inter) / (z_intra[:, :, i] + z_inter + eps)[..., None])
        to_end = torch.exp(a_i[..., -1:] - a_i)  # from each token to the chunk end
        weighted_k = phi_k[:, :, i] * to_end[..., None]
        chunk_decay = torch.exp(a_i[..., -1])
        state = chunk_decay[..., None, None] * state + weighted_k.transpose(-1, -2) @ vc[:, :, i]
        norm_state = chunk_decay[..., None] * norm_state + weighted_k.sum(-2)
    return torch.stack(ys, dim=2).reshape(b, h, t, e)


class PowerAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkvg = nn.Linear(d_model, 3 * num_heads * head_dim + num_heads, bias=False)
        self.gate_bias = nn.Parameter(torch.linspace(3.0, 6.0, num_heads))  # gamma ~ 0.95-0.998 at init
        self.q_norm = RMSNorm(head_dim)
        self.k_norm = RMSNorm(head_dim)
        self.o_norm = RMSNorm(head_dim)
        self.o_proj = nn.Linear(num_heads * head_dim, d_model, bias=False)

    def forward(self, x):
        bsz, t, _ = x.shape
        q, k, v, g = torch.split(self.qkvg(x), [num_heads * head_dim] * 3 + [num_heads], dim=-1)
        q, k, v = (y.view(bsz, t, num_heads, head_dim).transpose(1, 2) for y in (q, k, v))
        q = self.q_norm(q) / head_dim ** 0.5
        k = self.k_norm(k)
        log_gate = F.logsigmoid(g + self.gate_bias).transpose(1, 2)  # (b, h, t)
        y = power_attention_chunked(q, k, v, log_gate, chunk_size)
        y = self.o_norm(y).transpose(1, 2).reshape(bsz, t, num_heads * head_dim)
        return self.o_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.mixer = PowerAttention()
        self.norm2 = RMSNorm(d_model)
        self.gate_up = nn.Linear(d_model, 2 * mlp_hidden, bias=False)
        self.down = nn.Linear(mlp_hidden, d_model, bias=False)

    def forward(self, x):
        x = x + self.mixer(self.norm1(x))
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block() for _ in range(num_layers))
        self.norm = RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return []
