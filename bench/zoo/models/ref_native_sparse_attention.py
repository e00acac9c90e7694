"""Native Sparse Attention (Yuan et al. 2025, DeepSeek, "Native Sparse Attention: Hardware-Aligned and Natively
Trainable Sparse Attention"), readable dense-masked reference of the NSA layer: every query attends through
three branches whose outputs are mixed by learned sigmoid gates, with grouped-query attention (4 query heads,
2 key/value heads, so each kv head and its block selection is shared by a group of 2 query heads). Causal.

Each branch has its own key / value projections (as in the paper, against shortcut learning); queries are
shared. Per query position t (0-indexed):
 1. Compression ("cmp"): the keys / values are cut into blocks of l = 8 with stride d = 4 (overlapping, as the
    paper's l = 32, d = 16), block i covering positions [i d, i d + l); each block, plus a learned intra-block
    position embedding, is flattened and compressed to one key (one value) by an MLP
    (Linear(l * head_dim, 64) -> GELU -> Linear(64, head_dim), separate MLPs for keys and values). Query t
    attends to the compressed blocks that lie entirely in its past (i d + l - 1 <= t); the first l - 1
    queries have none and get a zero output from this branch.
 2. Selection ("slc"): the cmp attention probabilities are mapped to selection blocks of l' = 8
    (positions [j l', (j + 1) l')) by the paper's eq. 9, p_slc[j] = sum_i p_cmp[i] * overlap(i, j) / d,
    i.e. weights 1, 2, 1 for the compression blocks half / fully / half inside block j, then summed over the
    query heads of a GQA group (eq. 10) so the group shares one selection. The block holding t is always
    selected (the paper keeps its local blocks active), the other n - 1 = 1 is torch.topk of p_slc over the
    blocks that start at or before t (future blocks masked to -inf; a query with no such block left keeps
    only its own). The selected blocks' raw keys / values are gathered (n l' = 16 tokens per query) and
    attended with a causal mask on their positions.
 3. Sliding window ("win"): attention to the last w = 16 positions (t - w < s <= t).
Output: o_t = sum_c sigmoid(W_g x_t)_c * o_t^c per query head, then the output projection.
Dense reference: scores are computed with einsum and masked (masked entries filled with the dtype's most
negative value, so fully masked rows stay finite); probabilities of masked entries are exactly 0.
Inits: PyTorch defaults for all Linear layers; intra-block position embeddings N(0, 0.02^2).
Sizes: d_model 64, seq 64, head_dim 16, 4 query / 2 kv heads, blocks 8 (8 selection blocks, 15 compression
blocks), cmp stride 4, top-n 2, window 16.

Input: x (2, 64, 64) = (batch, seq, d_model). Output: (2, 64, 64).
"""
import torch
from torch import nn

batch_size = 2
seq_len = 64
d_model = 64
num_q_heads = 4
num_kv_heads = 2
head_dim = 16
block_size = 8  # compression block l and selection block l'
cmp_stride = 4
top_n = 2
window = 16


class BlockCompressor(nn.Module):
    """phi: a block of l tokens (plus an intra-block position embedding) -> one token, by an MLP."""

    def __init__(self, block_size, head_dim, hidden=64):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(block_size, head_dim) * 0.02)
        self.mlp = nn.Sequential(nn.Linear(block_size * head_dim, hidden), nn.GELU(), nn.Linear(hidden, head_dim))

    def forward(self, blocks):  # (..., l, head_dim) -> (..., head_dim)
        return self.mlp((blocks + self.pos).flatten(-2))


class Model(nn.Module):
    def __init__(self, d_model, num_q_heads, num_kv_heads, head_dim, seq_len, block_size, cmp_stride, top_n, window):
        super().__init__()
        self.hq, self.hkv, self.dh = num_q_heads, num_kv_heads, head_dim
        self.block, self.stride, self.top_n, self.window = block_size, cmp_stride, top_n, window
        self.scale = head_dim ** -0.5
        self.q_proj = nn.Linear(d_model, num_q_heads * head_dim, bias=False)
        self.kv_cmp = nn.Linear(d_model, 2 * num_kv_heads * head_dim, bias=False)
        self.kv_slc = nn.Linear(d_model, 2 * num_kv_heads * head_dim, bias=False)
        self.kv_win = nn.Linear(d_model, 2 * num_kv_heads * head_dim, bias=False)
        self.k_compress = BlockCompressor(block_size, head_dim)
        self.v_compress = BlockCompressor(block_size, head_dim)
        self.gate = nn.Linear(d_model, 3 * num_q_heads)
        self.o_proj = nn.Linear(num_q_heads * head_dim, d_model, bias=False)
        # eq. 9: weight of compression block i in selection block j = (shared positions) / stride
        cmp_starts = torch.arange(0, seq_len - block_size + 1, cmp_stride)           # (Nc,)
        sel_starts = torch.arange(0, seq_len, block_size)                            # (Ns,)
        lo = torch.maximum(cmp_starts[None, :], sel_starts[:, None])
        hi = torch.minimum(cmp_starts[None, :] + block_size, sel_starts[:, None] + block_size)
        self.register_buffer("cmp_to_sel", (hi - lo).clamp(min=0).float() / cmp_stride)  # (Ns, Nc)
        self.register_buffer("cmp_starts", cmp_starts)
        self.cmp_start_list = cmp_starts.tolist()

    def split_kv(self, proj, x):
        B, T, _ = x.shape
        k, v = proj(x).view(B, T, 2, self.hkv, self.dh).permute(2, 0, 3, 1, 4)     # each (B, Hkv, T, dh)
        return k, v

    def masked_attention(self, scores, mask, v, eq):
        neg = torch.finfo(scores.dtype).min
        p = torch.softmax(scores.masked_fill(~mask, neg), dim=-1).masked_fill(~mask, 0.0)
        return torch.einsum(eq, p, v), p

    def forward(self, x):
        B, T, _ = x.shape
        G, bl, dh = self.hq // self.hkv, self.block, self.dh
        pos = torch.arange(T, device=x.device)
        q = self.q_proj(x).view(B, T, self.hkv, G, dh).permute(0, 2, 3, 1, 4)       # (B, Hkv, G, T, dh)

        # 1. compressed blocks
        k, v = self.split_kv(self.kv_cmp, x)
        k_cmp = self.k_compress(torch.stack([k[:, :, s:s + bl] for s in self.cmp_start_list], dim=2))
        v_cmp = self.v_compress(torch.stack([v[:, :, s:s + bl] for s in self.cmp_start_list], dim=2))
        cmp_valid = (self.cmp_starts[None, :] + bl - 1) <= pos[:, None]              # (T, Nc)
        scores = torch.einsum("bhgtd,bhnd->bhgtn", q, k_cmp) * self.scale
        o_cmp, p_cmp = self.masked_attention(scores, cmp_valid, v_cmp, "bhgtn,bhnd->bhgtd")

        # 2. selected blocks: importance from the cmp probabilities, shared by the GQA group
        p_slc = torch.einsum("bhgtn,jn->bhtj", p_cmp, self.cmp_to_sel)             # (B, Hkv, T, Ns)
        n_sel = p_slc.shape[-1]
        blk = torch.arange(n_sel, device=x.device)
        blk_causal = (blk[None, :] * bl) <= pos[:, None]                              # (T, Ns)
        blk_current = blk[None, :] == (pos // bl)[:, None]
        p_slc = p_slc.masked_fill(~blk_causal, float("-inf")).masked_fill(blk_current, float("inf"))
        idx = torch.topk(p_slc, self.top_n, dim=-1).indices                          # (B, Hkv, T, n)
        idx_valid = torch.gather(blk_causal.expand(B, self.hkv, T, n_sel), -1, idx)  # False: a future block
        k, v = self.split_kv(self.kv_slc, x)
        b_idx = torch.arange(B, device=x.device)[:, None, None, None]
        h_idx = torch.arange(self.hkv, device=x.device)[None, :, None, None]
        k_sel = k.view(B, self.hkv, n_sel, bl, dh)[b_idx, h_idx, idx].flatten(3, 4)  # (B, Hkv, T, n * bl, dh)
        v_sel = v.view(B, self.hkv, n_sel, bl, dh)[b_idx, h_idx, idx].flatten(3, 4)
        key_pos = (idx[..., None] * bl + torch.arange(bl, device=x.device)).flatten(-2)  # (B, Hkv, T, n * bl)
        sel_mask = (key_pos <= pos[:, None]) & idx_valid.repeat_interleave(bl, dim=-1)
        scores = torch.einsum("bhgtd,bhtkd->bhgtk", q, k_sel) * self.scale
        o_slc, _ = self.masked_attention(scores, sel_mask[:, :, None], v_sel, "bhgtk,bhtkd->bhgtd")

        # 3. sliding window
        k, v = self.split_kv(self.kv_win, x)
        win_mask = (pos[None, :] <= pos[:, None]) & (pos[None, :] > pos[:, None] - self.window)  # (T, T)
        scores = torch.einsum("bhgtd,bhsd->bhgts", q, k) * self.scale
        o_win, _ = self.masked_attention(scores, win_mask, v, "bhgts,bhsd->bhgtd")

        # gated combination
        g = torch.sigmoid(self.gate(x)).view(B, T, self.hkv, G, 3).permute(0, 2, 3, 1, 4)  # (B, Hkv, G, T, 3)
        o = g[..., 0:1] * o_cmp + g[..., 1:2] * o_slc + g[..., 2:3] * o_win          # (B, Hkv, G, T, dh)
        o = o.permute(0, 3, 1, 2, 4).reshape(B, T, self.hq * dh)
        return self.o_proj(o)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_q_heads, num_kv_heads, head_dim, seq_len, block_size, cmp_stride, top_n, window]
