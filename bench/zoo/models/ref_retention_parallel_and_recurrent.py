"""RetNet retention (Sun et al. 2023, "Retentive Network: A Successor to Transformer for Large Language Models")
computed in two forms that hand a state over: per head (decay gamma_h = 1 - 2^(-5-h)) the retention
    o_n = sum_{m <= n} gamma^(n - m) (q_n . k_m) v_m
runs in its recurrent form for the first half of the sequence (S_n = gamma S_{n-1} + k_n^T v_n, o_n = q_n S_n,
token by token in a Python loop), then the second half continues from the carried state in chunkwise form
(parallel retention with the decay mask inside a chunk, gamma^(i+1) q_i S for the carried part, S <- gamma^C S +
(gamma^(C-1-i) k_i)^T v_i across chunks), as an inference engine does when, after streaming tokens one at a time,
it gets a block of new tokens to absorb into the same state. q is scaled by d_k^-0.5; no decay normalisation.

Inputs: q, k (batch, heads, seq, d_k), v (batch, heads, seq, d_v), float32; seq/2 a multiple of the chunk size.
Output: o (batch, heads, seq, d_v) and the final state (batch, heads, d_k, d_v).
"""
import torch
from torch import nn

batch_size = 2
heads = 4
seq_len = 128
d_k = 32
d_v = 32
chunk_size = 16


class Model(nn.Module):
    def __init__(self, heads, chunk_size):
        super().__init__()
        self.chunk = chunk_size
        gamma = 1 - 2 ** (-5 - torch.arange(heads, dtype=torch.float32))
        self.register_buffer("log_gamma", gamma.log())

    def forward(self, q, k, v):
        B, H, T, K = q.shape
        V = v.shape[-1]
        C = self.chunk
        split = T // 2
        q = q * K ** -0.5
        lg = self.log_gamma.view(H, 1, 1)
        state = q.new_zeros(B, H, K, V)

        # recurrent form, token by token
        outs = []
        for n in range(split):
            state = lg.exp() * state + k[:, :, n].unsqueeze(-1) * v[:, :, n].unsqueeze(-2)
            outs.append((q[:, :, n].unsqueeze(-2) @ state).squeeze(-2))

        # chunkwise form, from the carried state
        idx = torch.arange(C, device=q.device, dtype=q.dtype)
        decay = torch.exp(lg * (idx[:, None] - idx[None, :])).masked_fill(idx[:, None] < idx[None, :], 0)
        q_decay = torch.exp(lg * (idx + 1)[:, None])          # (H, C, 1)
        k_decay = torch.exp(lg * (C - 1 - idx)[:, None])      # (H, C, 1)
        chunk_decay = torch.exp(lg * C)                         # (H, 1, 1)
        chunks = []
        for s in range(split, T, C):
            qc, kc, vc = q[:, :, s:s + C], k[:, :, s:s + C], v[:, :, s:s + C]
            inner = ((qc @ kc.transpose(-1, -2)) * decay) @ vc
            cross = (qc * q_decay) @ state
            chunks.append(inner + cross)
            state = chunk_decay * state + (kc * k_decay).transpose(-1, -2) @ vc
        o = torch.cat([torch.stack(outs, dim=2), *chunks], dim=2)
        return o, state


def get_inputs():
    q = torch.randn(batch_size, heads, seq_len, d_k)
    k = torch.randn(batch_size, heads, seq_len, d_k)
    v = torch.randn(batch_size, heads, seq_len, d_v)
    return [q, k, v]


def get_init_inputs():
    return [heads, chunk_size]
