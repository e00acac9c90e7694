"""xLSTM's mLSTM cell (Beck et al. 2024), stabilised chunkwise form: exponential input gates and sigmoid
forget gates in log space, a matrix memory C, a normaliser n and a stabiliser m carried across chunks in a
Python loop; inside a chunk, a causal gated attention. After the xLSTM kernels' chunkwise reference.

Inputs: q, k, v (batch, heads, seq, dim); i, f (batch, heads, seq) gate pre-activations.
Output: h (batch, heads, seq, dim).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
heads = 2
seq_len = 64
head_dim = 16
chunk_size = 16


class Model(nn.Module):
    def __init__(self, chunk_size, eps=1e-6):
        super().__init__()
        self.chunk_size = chunk_size
        self.eps = eps

    def forward(self, q, k, v, i, f):
        B, H, T, D = q.shape
        L = self.chunk_size
        q = q * D ** -0.5
        log_f = F.logsigmoid(f)
        C = q.new_zeros(B, H, D, D)
        n = q.new_zeros(B, H, D)
        m = q.new_full((B, H), float("-inf"))
        causal = torch.tril(torch.ones(L, L, dtype=torch.bool, device=q.device))
        hs = []
        for s in range(0, T, L):
            qc, kc, vc = q[:, :, s:s + L], k[:, :, s:s + L], v[:, :, s:s + L]
            ic, lf = i[:, :, s:s + L], log_f[:, :, s:s + L]
            b = lf.cumsum(-1)                                            # (B, H, L)
            # intra-chunk log weights: b_t - b_s + i_s for s <= t
            log_d = (b[..., :, None] - b[..., None, :] + ic[..., None, :]).masked_fill(~causal, float("-inf"))
            # inter-chunk: the carried state decayed by b_t, stabilised by m
            log_inter = b + m[..., None]                                 # (B, H, L)
            m_t = torch.maximum(log_d.amax(-1), log_inter)               # (B, H, L)
            d = (log_d - m_t[..., None]).exp()
            inter = (log_inter - m_t).exp()
            scores = (qc @ kc.transpose(-1, -2)) * d
            num = scores @ vc + inter[..., None] * (qc @ C)
            den = scores.sum(-1) + inter * (qc * n[..., None, :]).sum(-1)
            denom = torch.maximum(den.abs(), (-m_t).exp()) + self.eps
            hs.append(num / denom[..., None])
            # carry the state to the end of the chunk
            g_last = b[..., -1:] - b + ic                                # (B, H, L)
            m_new = torch.maximum(b[..., -1] + m, g_last.amax(-1))
            w = (g_last - m_new[..., None]).exp()
            decay = (b[..., -1] + m - m_new).exp()
            C = decay[..., None, None] * C + (kc * w[..., None]).transpose(-1, -2) @ vc
            n = decay[..., None] * n + (kc * w[..., None]).sum(-2)
            m = m_new
        return torch.cat(hs, dim=2)


def get_inputs():
    q = torch.randn(batch_size, heads, seq_len, head_dim)
    k = torch.randn(batch_size, heads, seq_len, head_dim)
    v = torch.randn(batch_size, heads, seq_len, head_dim)
    i = torch.randn(batch_size, heads, seq_len)
    f = torch.randn(batch_size, heads, seq_len) + 3.0
    return [q, k, v, i, f]


def get_init_inputs():
    return [chunk_size]
