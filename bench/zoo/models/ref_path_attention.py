"""PaTH attention (Yang et al., 2025, "PaTH Attention: Position Encoding via Accumulating Householder
Transformations"), in plain PyTorch: a causal softmax-attention language model whose position encoding is
data-dependent. Instead of RoPE's fixed rotation by (i - j), the query at position i and the key at position j
interact through the product of the Householder-like transitions of every token between them:
    H_t = I - beta_t w_t w_t^T          w_t = L2Norm(ShortConv(W_w x_t)),  beta_t = 2 sigmoid(W_b x_t) in (0, 2)
    logit_ij = k_j^T H_{j+1} H_{j+2} ... H_i q_i / sqrt(d)      (j <= i; the empty product for j = i)
so every H_t is symmetric with eigenvalues 1 and 1 - beta_t in (-1, 1). All T^2 products are never formed: the
masked keys R_i (row j = H_i ... H_{j+1} k_j) follow a delta-rule recurrence R_i = R_{i-1} H_i + e_i k_i^T, and
solving it in closed form with the UT transform gives, per head (tril includes the diagonal, stril does not):
    T_inv = (I + diag(beta) stril(W W^T))^{-1}                (unit lower-triangular, one triangular solve)
    logits = tril(Q K^T) - tril(Q W^T) T_inv diag(beta) stril(W K^T)
then the causal mask, softmax and P @ V as usual. The triangular solve (torch.linalg.solve_triangular with
unitriangular=True) is the core of the kernel (the paper's FlashAttention-style version applies the same
identity blockwise); the rest is three masked T x T products. The layer follows the paper's: q / k / v
projections (no RoPE: PaTH is the only position signal), w from a low-rank projection (d -> 16 -> heads x d_head)
through a causal depthwise short conv (kernel 4) and an L2 normalisation per head, beta from a per-head Linear;
output projection. Blocks are pre-RMSNorm with a SwiGLU MLP. (The paper's PaTH-FoX variant adds a forget gate;
this file keeps plain PaTH.)

Sizes: vocab 1000, d_model 64, 2 layers, 4 heads of 16, w rank 16, SwiGLU 176; batch 2 x 64 tokens (the paper's
models: ~760M parameters, 16 heads of 96 at 4K context).
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
w_rank = 16
conv_size = 4
mlp_hidden = 176


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class ShortConv(nn.Module):
    """Causal depthwise conv1d over time (no activation), on (batch, seq, channels)."""

    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, groups=channels, bias=False)
        self.pad = kernel_size - 1

    def forward(self, x):
        return self.conv(F.pad(x.transpose(1, 2), (self.pad, 0))).transpose(1, 2)


def path_attention(q, k, v, w, beta):
    """q, k, v, w: (b, h, t, d) with w unit-norm; beta: (b, h, t) in (0, 2). Returns (b, h, t, d)."""
    t, d = q.shape[-2], q.shape[-1]
    ones = torch.ones(t, t, dtype=torch.bool, device=q.device)
    incl = ones.tril()  # j <= i
    strict = ones.tril(-1)  # j < i
    zero = q.new_zeros(())
    # UT transform of the Householder products: (I + diag(beta) stril(W W^T))^{-1} diag(beta)
    a = torch.where(strict, w @ w.transpose(-1, -2), zero) * beta[..., :, None]
    eye = torch.eye(t, dtype=q.dtype, device=q.device)
    rhs = beta[..., :, None] * torch.where(strict, w @ k.transpose(-1, -2), zero)  # diag(beta) stril(W K^T)
    u = torch.linalg.solve_triangular(eye + a, rhs, upper=False, unitriangular=True)
    qk = torch.where(incl, q @ k.transpose(-1, -2), zero)
    qw = torch.where(incl, q @ w.transpose(-1, -2), zero)
    logits = (qk - qw @ u) * d ** -0.5
    logits = logits.masked_fill(~incl, float("-inf"))
    return torch.softmax(logits, dim=-1) @ v


class PaTHAttention(nn.Module):
    def __init__(self):
        super().__init__()
        inner = num_heads * head_dim
        self.q_proj = nn.Linear(d_model, inner, bias=False)
        self.k_proj = nn.Linear(d_model, inner, bias=False)
        self.v_proj = nn.Linear(d_model, inner, bias=False)
        self.w_down = nn.Linear(d_model, w_rank, bias=False)
        self.w_up = nn.Linear(w_rank, inner, bias=False)
        self.w_conv = ShortConv(inner, conv_size)
        self.beta_proj = nn.Linear(d_model, num_heads, bias=True)
        self.o_proj = nn.Linear(inner, d_model, bias=False)

    def forward(self, x):
        b, t, _ = x.shape

        def heads(y):
            return y.view(b, t, num_heads, head_dim).transpose(1, 2)

        q = heads(self.q_proj(x))
        k = heads(self.k_proj(x))
        v = heads(self.v_proj(x))
        w = F.normalize(heads(self.w_conv(self.w_up(self.w_down(x)))), dim=-1)
        beta = 2.0 * torch.sigmoid(self.beta_proj(x)).transpose(1, 2)  # (b, h, t)
        o = path_attention(q, k, v, w, beta)
        return self.o_proj(o.transpose(1, 2).reshape(b, t, -1))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.attn = PaTHAttention()
        self.norm2 = RMSNorm(d_model)
        self.gate_up = nn.Linear(d_model, 2 * mlp_hidden, bias=False)
        self.down = nn.Linear(mlp_hidden, d_model, bias=False)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
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
