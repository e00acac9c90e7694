"""MesaNet (von Oswald et al., 2025, "MesaNet: Sequence Modeling by Locally Optimal Test-Time Training"), in plain
PyTorch: a linear-RNN language model whose sequence mixer, the Mesa layer, solves a regularised least-squares
problem to optimality at every position instead of taking one gradient step (as DeltaNet does). Per head, with
forget gate gamma_t = sigmoid(a_t) (kept in log space) and input strength beta_t = sigmoid(b_t):
    H_t = gamma_t H_{t-1} + beta_t k_t k_t^T          (d_k x d_k)
    G_t = gamma_t G_{t-1} + beta_t k_t v_t^T          (d_k x d_v)
    q*_t = (H_t + diag(lambda))^{-1} q_t               lambda = softplus(param) + 0.25, per key channel
    o_t  = G_t^T q*_t
The linear solve runs as a fixed number of conjugate-gradient iterations (30, from x = 0, with +1e-5 in the
alpha / beta denominators), for all positions at once, in the chunkwise-parallel form: the sequence is cut into
chunks of 16; H and G are carried across chunk boundaries by a short loop (decay by the chunk's total gate, add the
chunk's decayed k k^T / k v^T), and inside a chunk the operator is applied as a masked, decayed "attention":
    (H_t + L) p_t = gamma_(start..t) H_start p_t + sum_{start <= s <= t} exp(g_t - g_s) beta_s k_s (k_s . p_t)
                    + L p_t                       (L = diag(lambda), g = cumulative log forget gate)
so every CG step is one inter-chunk GEMM plus one intra-chunk masked QK^T-style product, and the output is the same
two-part product with q* in place of p and V in place of K. The layer wrapper follows the reference layer: q / k
projections through causal depthwise short convs (kernel 4) with SiLU, L2-normalised q and k, no conv on v, a
per-head RMSNorm on the output and an output projection. Blocks are pre-RMSNorm with a SwiGLU MLP.

Sizes: vocab 1000, d_model 64, 2 layers, 4 heads of 16 (paper: ~1B parameters, 16 heads of 128), chunk 16,
30 CG steps (the reference default), SwiGLU 176; batch 2 x 64 tokens (4 chunks).
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
chunk_size = 16
cg_steps = 30
conv_size = 4
mlp_hidden = 176
lambda_lower_bound = 0.25


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class ShortConv(nn.Module):
    """Causal depthwise conv1d over time with SiLU, on (batch, seq, channels)."""

    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, groups=channels, bias=False)
        self.pad = kernel_size - 1

    def forward(self, x):
        return F.silu(self.conv(F.pad(x.transpose(1, 2), (self.pad, 0))).transpose(1, 2))


def mesa_chunk_cg(q, k, v, g, beta, lamb, chunk, steps):
    """q, k, v: (b, h, t, d); g: log forget gate (b, h, t); beta: (b, h, t); lamb: (h, d). Returns (b, h, t, d)."""
    b, h, t, d = q.shape
    n = t // chunk
    q, k, v = (x.reshape(b, h, n, chunk, d) for x in (q, k, v))
    g = g.reshape(b, h, n, chunk).cumsum(-1)  # within-chunk cumulative log decay
    beta = beta.reshape(b, h, n, chunk)
    causal = torch.ones(chunk, chunk, dtype=torch.bool, device=q.device).tril()
    # intra-chunk decay: exp(g_i - g_j) beta_j for j <= i
    pair = (g[..., :, None] - g[..., None, :]).masked_fill(~causal, float("-inf")).exp() * beta[..., None, :]
    decay_q = g.exp()  # decay from the chunk start to each position
    decay_k = (g[..., -1:] - g).exp() * beta  # each key's weight in the chunk-end state
    # inter-chunk states H (kk) and G (kv) at each chunk start
    h_kk = q.new_zeros(b, h, d, d)
    h_kv = q.new_zeros(b, h, d, d)
    states_kk, states_kv = [], []
    for i in range(n):
        states_kk.append(h_kk)
        states_kv.append(h_kv)
        kw = k[:, :, i] * decay_k[:, :, i, :, None]
        total = g[:, :, i, -1].exp()[..., None, None]
        h_kk = h_kk * total + kw.transpose(-1, -2) @ k[:, :, i]
        h_kv = h_kv * total + kw.transpose(-1, -2) @ v[:, :, i]
    states_kk = torch.stack(states_kk, dim=2)  # (b, h, n, d, d)
    states_kv = torch.stack(states_kv, dim=2)
    lamb = lamb[None, :, None, None, :]

    def apply_h(p):  # (H_t + diag(lambda)) p_t for every position t
        inter = (p * decay_q[..., None]) @ states_kk
        intra = ((p @ k.transpose(-1, -2)) * pair) @ k
        return inter + intra + lamb * p

    x = torch.zeros_like(q)
    r = q - apply_h(x)
    p = r
    delta_old = (r * r).sum(-1)
    for _ in range(steps):
        hp = apply_h(p)
        alpha = delta_old / ((p * hp).sum(-1) + 1e-5)
        x = x + alpha[..., None] * p
        r = r - alpha[..., None] * hp
        delta_new = (r * r).sum(-1)
        p = r + (delta_new / (delta_old + 1e-5))[..., None] * p
        delta_old = delta_new
    o = (x * decay_q[..., None]) @ states_kv + ((x @ k.transpose(-1, -2)) * pair) @ v
    return o.reshape(b, h, t, d)


class MesaLayer(nn.Module):
    def __init__(self):
        super().__init__()
        inner = num_heads * head_dim
        self.q_proj = nn.Linear(d_model, inner, bias=False)
        self.k_proj = nn.Linear(d_model, inner, bias=False)
        self.v_proj = nn.Linear(d_model, inner, bias=False)
        self.a_proj = nn.Linear(d_model, num_heads)  # forget gate logits
        self.b_proj = nn.Linear(d_model, num_heads)  # input strength logits
        self.q_conv = ShortConv(inner, conv_size)
        self.k_conv = ShortConv(inner, conv_size)
        # lambda initialised to 1.0: softplus(p) + 0.25 = 1
        init = torch.log(torch.expm1(torch.tensor(1.0 - lambda_lower_bound)))
        self.lambda_params = nn.Parameter(torch.full((inner,), float(init)))
        self.o_norm = RMSNorm(head_dim)
        self.o_proj = nn.Linear(inner, d_model, bias=False)

    def forward(self, x):
        b, t, _ = x.shape

        def heads(y):
            return y.view(b, t, num_heads, head_dim).transpose(1, 2)

        q = F.normalize(heads(self.q_conv(self.q_proj(x))), dim=-1)
        k = F.normalize(heads(self.k_conv(self.k_proj(x))), dim=-1)
        v = heads(self.v_proj(x))
        g = F.logsigmoid(self.a_proj(x)).transpose(1, 2)  # (b, h, t)
        beta = torch.sigmoid(self.b_proj(x)).transpose(1, 2)
        lamb = (F.softplus(self.lambda_params) + lambda_lower_bound).view(num_heads, head_dim)
        o = mesa_chunk_cg(q, k, v, g, beta, lamb, chunk_size, cg_steps)
        o = self.o_norm(o).transpose(1, 2).reshape(b, t, -1)
        return self.o_proj(o)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.mixer = MesaLayer()
        self.norm2 = RMSNorm(d_model)
        self.gate_up = nn.Linear(d_model, 2 * mlp_hidden, bias=False)
        self.down = nn.Linear(mlp_hidden, d_model, bias=False)

    def forward(self, x):
        x = x + self.mixer(self.norm1(x))
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self, vocab_size, num_layers):
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
    return [vocab_size, num_layers]
