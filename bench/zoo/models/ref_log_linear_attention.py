"""Log-Linear Attention (Guo, Yang, Goel, Xing, Dao, Kim 2025, "Log-Linear Attention"), readable chunkwise
reference of one Log-Linear Mamba-2 layer, after fla's LogLinearMamba2 layer (fla.layers.log_linear_mamba2) with
its Triton chunk_log_linear_attn kernel written out as a Python loop over chunks.

Mamba-2 (SSD) is gated linear attention with a scalar decay per head and step, o_t = sum_{s <= t}
exp(G_t - G_s) (q_t . k_s) v_s, G = cumsum(g), g_t = A dt_t <= 0, which compresses the whole prefix into one
(d_k x d_v) state. Log-linear attention splits the prefix of every query t into O(log t) Fenwick-tree buckets and
gives each bucket its own state and its own data-dependent weight lambda_t^(l) >= 0:
    o_t = sum_{s <= t} lambda_t^(level(t, s)) exp(G_t - G_s) (q_t . k_s) v_s,
    level(t, t) = 0,   level(t, s) = floor(log2(t XOR s)) + 1 for s < t
(the paper's "weak" hierarchy: bucket l >= 1 exists iff bit l - 1 of t is set and holds the 2^(l-1) positions that
agree with t above bit l - 1 and have a 0 there), so T = 64 needs ceil(log2 64) + 1 = 7 levels.
Chunkwise form (chunk C = 16, so levels 0..4 fall inside a chunk and 5..6 between chunks):
  - intra-chunk: a dense C x C matrix (q k^T) * exp(G_i - G_j) * lambda_i^(level(i, j)), causal, with the level
    table of the chunk offsets (t XOR s only has bits below log2 C when t and s share a chunk);
  - inter-chunk: for chunk c the earlier chunks form Fenwick buckets at chunk granularity (chunk level
    l_c = floor(log2(c XOR c')) + 1, overall level l_c + log2 C). A list of per-level states S^(l_c) (each
    (d_k x d_v) per head, decayed to the end of the previous chunk) is carried through the loop; chunk c reads
    sum_l lambda_t^(l + log2 C) exp(G_t - G_start) q_t S^(l); then every state is decayed by the chunk's total
    gate, the chunk's own state enters at level 1, and, as in a binary counter (Fenwick insert), levels
    1..tz(c + 1) merge into level tz(c + 1) + 1 (tz: trailing zeros), leaving those lower levels empty.
Layer (Mamba-2 with the lambda branch): in_proj x -> [z (gate), xBC, dt, dl]; a causal depthwise conv1d (width 4,
no bias) + SiLU over xBC -> x (values, heads of 32), B (keys), C (queries) with one group (B and C shared by all
heads, state 16); dt = softplus(dt + dt_bias); v = x * dt; g = -exp(A_log) * dt; lambda = softplus(L * dl) with a
learned per-head, per-level L (init 1) and dl from the input (num_heads x num_levels channels of in_proj); the
log-linear attention above (no q.k scaling) plus the D skip (D x); gated RMSNorm y <- RMSNorm(y * SiLU(z))
(norm_before_gate=False, eps 1e-5); out_proj.
Inits (Mamba-2's): A_log = log(1..H), D = 1, L = 1, dt_bias = softplus^-1(dt) with dt log-uniform in
[0.001, 0.1]; PyTorch defaults for the Linears and the conv.
Sizes (fla layer defaults -> here): hidden 2048 -> 64, expand 2 (kept: inner 128), head dim 64 -> 32 (heads 4),
state 128 -> 16, chunk 64 -> 16, levels 15 (MAX_NUM_LEVELS, sized for 16384 tokens) -> 7 (for seq 64). in_proj /
out_proj without bias (the fla layer's use_bias defaults to True; Mamba-2's own layers use none).
Checked against the materialized form (the full T x T matrix lambda_t^(level(t, s)) exp(G_t - G_s) (q_t . k_s),
with the official recursive level index) at T = 64, 128, 256: equal to ~1e-6 relative.

Input: x (2, 64, 64) = (batch, seq, hidden). Output: (2, 64, 64).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
hidden_size = 64
num_heads = 4
head_dim = 32
state_size = 16
conv_kernel = 4
chunk_size = 16


def num_levels_for(length):
    return math.ceil(math.log2(length)) + 1


def level_table(size):
    """(size, size) long tensor: level(t, s) = 0 if s == t, bit_length(t XOR s) if s < t, 0 above the diagonal."""
    levels = torch.zeros(size, size, dtype=torch.long)
    for t in range(size):
        for s in range(t):
            levels[t, s] = (t ^ s).bit_length()
    return levels


class LogLinearMamba2(nn.Module):
    def __init__(self, hidden_size, num_heads, head_dim, state_size, conv_kernel, chunk_size, max_seq_len):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.state_size = state_size
        self.chunk_size = chunk_size
        self.inner = num_heads * head_dim
        self.num_levels = num_levels_for(max_seq_len)
        self.conv_dim = self.inner + 2 * state_size
        self.in_proj = nn.Linear(
            hidden_size, self.inner + self.conv_dim + num_heads + num_heads * self.num_levels, bias=False
        )
        self.conv1d = nn.Conv1d(
            self.conv_dim, self.conv_dim, conv_kernel, groups=self.conv_dim, padding=conv_kernel - 1, bias=False
        )
        dt = torch.exp(torch.rand(num_heads) * (math.log(0.1) - math.log(0.001)) + math.log(0.001))
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))              # inverse softplus
        self.A_log = nn.Parameter(torch.log(torch.arange(1, num_heads + 1, dtype=torch.float32)))
        self.L = nn.Parameter(torch.ones(num_heads, self.num_levels))
        self.D = nn.Parameter(torch.ones(num_heads))
        self.norm_weight = nn.Parameter(torch.ones(self.inner))
        self.out_proj = nn.Linear(self.inner, hidden_size, bias=False)
        self.register_buffer("intra_levels", level_table(chunk_size), persistent=False)

    def log_linear_attention(self, q, k, v, g, lam):
        """q, k (B, T, N); v (B, T, H, P); g (B, T, H) log decays; lam (B, T, H, L). Returns (B, T, H, P)."""
        B, T, H, P = v.shape
        N = q.shape[-1]
        C = self.chunk_size
        n_chunks = T // C
        chunk_bits = int(math.log2(C))
        q = q.view(B, n_chunks, C, N)
        k = k.view(B, n_chunks, C, N)
        v = v.view(B, n_chunks, C, H, P).permute(0, 1, 3, 2, 4)                     # (B, n, H, C, P)
        g = g.view(B, n_chunks, C, H).permute(0, 1, 3, 2)                            # (B, n, H, C)
        lam = lam.view(B, n_chunks, C, H, -1).permute(0, 1, 3, 2, 4)                 # (B, n, H, C, L)
        G = torch.cumsum(g, dim=-1)                                                  # within-chunk cumulative decay
        causal = torch.ones(C, C, dtype=torch.bool, device=v.device).tril()
        levels = self.intra_levels.expand(B, H, C, C)

        states = [None] * (self.num_levels - chunk_bits)        # chunk-level states, index l_c = 1 .. (slot 0 unused)
        outs = []
        for c in range(n_chunks):
            qc, kc, vc, Gc, lc = q[:, c], k[:, c], v[:, c], G[:, c], lam[:, c]
            # intra-chunk: levels 0 .. log2 C
            qk = torch.einsum("bin,bjn->bij", qc, kc)[:, None]                         # (B, 1, C, C)
            seg = (Gc[..., :, None] - Gc[..., None, :]).masked_fill(~causal, float("-inf"))
            lam_ij = torch.gather(lc, -1, levels)                                        # lambda_i^(level(i, j))
            o = torch.einsum("bhij,bhjp->bhip", qk * seg.exp() * lam_ij, vc)
            # inter-chunk: one state per Fenwick bucket of earlier chunks
            q_dec = qc[:, None] * Gc.exp()[..., None]                                    # (B, H, C, N)
            for level, state in enumerate(states):
                if state is not None:
                    o = o + lc[..., level + chunk_bits, None] * torch.einsum("bhin,bhnp->bhip", q_dec, state)
            outs.append(o)
            # carry: decay the states to this chunk's end, insert this chunk at level 1, merge (Fenwick insert)
            decay_total = Gc[..., -1]                                                    # (B, H)
            k_dec = kc[:, None] * (decay_total[..., None] - Gc).exp()[..., None]         # (B, H, C, N)
            new_state = torch.einsum("bhjn,bhjp->bhnp", k_dec, vc)
            for level in range(1, len(states)):
                if states[level] is not None:
                    states[level] = states[level] * decay_total.exp()[..., None, None]
            target = 1
            while (c + 1) % (2 ** target) == 0 and target + 1 < len(states):
                target += 1                                                              # tz(c + 1) + 1
            for level in range(1, target):
                if states[level] is not None:
                    new_state = new_state + states[level]
                    states[level] = None
            states[target] = new_state if states[target] is None else states[target] + new_state
        return torch.stack(outs, dim=1).permute(0, 1, 3, 2, 4).reshape(B, T, H, P)

    def forward(self, hidden_states):
        Bsz, T, _ = hidden_states.shape
        H, P, N = self.num_heads, self.head_dim, self.state_size
        z, xBC, dt, dl = torch.split(
            self.in_proj(hidden_states), [self.inner, self.conv_dim, H, H * self.num_levels], dim=-1
        )
        xBC = F.silu(self.conv1d(xBC.transpose(1, 2))[..., :T].transpose(1, 2))
        x, k, q = torch.split(xBC, [self.inner, N, N], dim=-1)                        # x, B (keys), C (queries)
        x = x.view(Bsz, T, H, P)
        dt = F.softplus(dt + self.dt_bias)                                              # (B, T, H)
        g = -torch.exp(self.A_log) * dt
        lam = F.softplus(self.L * dl.view(Bsz, T, H, self.num_levels))
        y = self.log_linear_attention(q, k, x * dt[..., None], g, lam)
        y = y + x * self.D[:, None]
        y = y.reshape(Bsz, T, self.inner) * F.silu(z)
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-5) * self.norm_weight
        return self.out_proj(y)


class Model(nn.Module):
    def __init__(self, hidden_size, num_heads, head_dim, state_size, conv_kernel, chunk_size, max_seq_len):
        super().__init__()
        self.mixer = LogLinearMamba2(
            hidden_size, num_heads, head_dim, state_size, conv_kernel, chunk_size, max_seq_len
        )

    def forward(self, x):
        return self.mixer(x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden_size)]


def get_init_inputs():
    return [hidden_size, num_heads, head_dim, state_size, conv_kernel, chunk_size, seq_len]
