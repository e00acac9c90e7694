"""Mixture-of-Memories linear attention (Du, Sun, Lan, Hu & Cheng 2025, "MoM: Linear Sequence Modeling with
Mixture-of-Memories", arXiv 2502.13685), in plain PyTorch with a chunked scan: a language model of MoM mixers and
SwiGLU MLPs. A linear-attention layer keeps not one matrix memory per head but M of them, and a token router writes
each token into only its top-k memories (the MoE idea applied to the recurrent STATE instead of the MLP):
    r_t = softmax(W_r x_t),   T_t = topk(r_t, k),   g_t^m = r_t^m / sum_{n in T_t} r_t^n   (m in T_t, else 0)
    memory m (own key / value projections k_t^m = W_k^m x_t, v_t^m = W_v^m x_t, own decay alpha_t^m):
        M_t^m = alpha_t^m M_{t-1}^m + (k_t^m)^T v_t^m     if m in T_t,     M_t^m = M_{t-1}^m  otherwise
    plus one shared memory (its own projections) updated by every token;
    o_t = q_t (M_t^shared + sum_m g_t^m M_t^m)      (one query projection shared by all memories).
Memories not chosen by a token neither decay nor grow, so each holds only the tokens routed to it; reading mixes the
chosen memories with the router weights. The update rule used here is gated linear attention (a data-dependent scalar
decay per head and memory, alpha = sigmoid(.), Mamba-2 / GLA-style; the paper's strongest variant swaps in the gated
delta rule). Chunked form per memory: unrouted tokens get log-decay 0 and a zeroed key, after which every memory is an
ordinary gated linear-attention scan: inside a chunk (Q K^T * exp(a_i - a_j) * causal) V, across chunks
exp(a_i) q_i S with S <- exp(a_C) S + sum_j exp(a_C - a_j) k_j^T v_j (a the in-chunk cumulative log decay); the
per-memory outputs are then weighted by g_t^m and summed with the shared memory's. q and k pass through SiLU and an
L2 normalisation per head (the usual feature map of the reference code base); the output gets a per-head RMSNorm and
a SiLU output gate before the output projection. Block: pre-RMSNorm mixer and pre-RMSNorm SwiGLU, each residual.

Sizes: vocab 1000, d_model 64, 2 layers, 4 heads of 16, 4 routed memories (top-2) + 1 shared, chunk 32, SwiGLU 176;
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
num_memories = 4
top_k = 2
chunk_size = 32
mlp_hidden = 176


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def gated_linear_attention_chunked(q, k, v, log_decay, chunk):
    """q, k: (..., t, d); v: (..., t, e); log_decay: (..., t) <= 0. Returns y (..., t, e), y_t = q_t S_t."""
    *lead, t, d = q.shape
    e = v.shape[-1]
    c = t // chunk
    qc, kc, vc = (x.reshape(*lead, c, chunk, x.shape[-1]) for x in (q, k, v))
    a = log_decay.reshape(*lead, c, chunk).cumsum(-1)
    causal = torch.ones(chunk, chunk, dtype=torch.bool, device=q.device).tril()
    decay = torch.exp((a[..., :, None] - a[..., None, :]).masked_fill(~causal, float("-inf")))
    y_intra = ((qc @ kc.transpose(-1, -2)) * decay) @ vc
    state = q.new_zeros(*lead, d, e)
    ys = []
    for i in range(c):
        a_i = a[..., i, :]
        ys.append(y_intra[..., i, :, :] + torch.exp(a_i)[..., None] * (qc[..., i, :, :] @ state))
        to_end = torch.exp(a_i[..., -1:] - a_i)
        state = torch.exp(a_i[..., -1])[..., None, None] * state + (kc[..., i, :, :] * to_end[..., None]).transpose(
            -1, -2) @ vc[..., i, :, :]
    return torch.stack(ys, dim=-3).reshape(*lead, t, e)


class MoMMixer(nn.Module):
    def __init__(self):
        super().__init__()
        inner = num_heads * head_dim
        self.n_mem = num_memories + 1  # routed memories, then the shared one
        self.q_proj = nn.Linear(d_model, inner, bias=False)
        self.k_proj = nn.Linear(d_model, self.n_mem * inner, bias=False)  # one key projection per memory
        self.v_proj = nn.Linear(d_model, self.n_mem * inner, bias=False)  # one value projection per memory
        self.decay_proj = nn.Linear(d_model, self.n_mem * num_heads, bias=True)
        with torch.no_grad():
            self.decay_proj.bias.copy_(torch.linspace(2.0, 5.0, num_heads).repeat(self.n_mem))
        self.router = nn.Linear(d_model, num_memories, bias=False)
        self.g_proj = nn.Linear(d_model, inner, bias=False)
        self.o_norm = RMSNorm(head_dim)
        self.o_proj = nn.Linear(inner, d_model, bias=False)

    def forward(self, x):
        bsz, t, _ = x.shape
        # routing: top-k memories per token, renormalised softmax weights
        probs = self.router(x).softmax(-1)  # (b, t, M)
        top_w, top_i = probs.topk(top_k, dim=-1)
        top_w = top_w / top_w.sum(-1, keepdim=True)
        weight = torch.zeros_like(probs).scatter(-1, top_i, top_w)  # g_t^m, 0 where not routed
        routed = torch.zeros_like(probs).scatter(-1, top_i, 1.0)
        ones = probs.new_ones(bsz, t, 1)
        weight = torch.cat([weight, ones], dim=-1)  # the shared memory: always written, read with weight 1
        routed = torch.cat([routed, ones], dim=-1)  # (b, t, M + 1)

        q = F.silu(self.q_proj(x)).view(bsz, t, num_heads, head_dim)
        q = F.normalize(q, dim=-1).transpose(1, 2)[:, None]  # (b, 1, h, t, d), shared by all memories
        k = F.silu(self.k_proj(x)).view(bsz, t, self.n_mem, num_heads, head_dim)
        k = F.normalize(k, dim=-1).permute(0, 2, 3, 1, 4)  # (b, m, h, t, d)
        v = self.v_proj(x).view(bsz, t, self.n_mem, num_heads, head_dim).permute(0, 2, 3, 1, 4)
        log_decay = F.logsigmoid(self.decay_proj(x)).view(bsz, t, self.n_mem, num_heads).permute(0, 2, 3, 1)
        gate = routed.permute(0, 2, 1)[:, :, None]  # (b, m, 1, t)
        k = k * gate[..., None]  # an unrouted token writes nothing ...
        log_decay = log_decay * gate  # ... and does not decay the memory
        y = gated_linear_attention_chunked(q.expand(-1, self.n_mem, -1, -1, -1), k, v, log_decay, chunk_size)
        y = (y * weight.permute(0, 2, 1)[:, :, None, :, None]).sum(1)  # mix the memories: (b, h, t, d)
        y = self.o_norm(y).transpose(1, 2).reshape(bsz, t, num_heads * head_dim)
        return self.o_proj(y * F.silu(self.g_proj(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.mixer = MoMMixer()
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
