"""Mamba-2's SSD (state-space duality, Dao & Gu 2024), the minimal chunked reference
(`ssd_minimal_discrete`): intra-chunk outputs from a segment-sum decay matrix, chunk states, a recurrence
over chunks, and the state-to-output conversion, all in einsums.

Inputs: X (batch, length, heads, head_dim), A (batch, length, heads) negative log decays, B and C (batch,
length, heads, d_state). Output: Y (batch, length, heads, head_dim) and the final state.
"""
import torch
from torch import nn

batch_size = 2
seq_len = 128
n_heads = 4
head_dim = 16
d_state = 16
block_len = 32


def segsum(x):
    T = x.size(-1)
    x = x[..., None].repeat(*([1] * x.dim()), T)
    mask = torch.tril(torch.ones(T, T, device=x.device, dtype=torch.bool), diagonal=-1)
    x = x.masked_fill(~mask, 0)
    x_segsum = torch.cumsum(x, dim=-2)
    mask = torch.tril(torch.ones(T, T, device=x.device, dtype=torch.bool), diagonal=0)
    return x_segsum.masked_fill(~mask, -torch.inf)


class Model(nn.Module):
    def __init__(self, block_len):
        super().__init__()
        self.block_len = block_len

    def forward(self, X, A, B, C):
        b, l, h, p = X.shape
        c = l // self.block_len
        X, A, B, C = (t.reshape(b, c, self.block_len, *t.shape[2:]) for t in (X, A, B, C))
        A = A.permute(0, 3, 1, 2)                     # b h c l
        A_cumsum = torch.cumsum(A, dim=-1)
        L = torch.exp(segsum(A))
        Y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", C, B, L, X)
        decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
        states = torch.einsum("bclhn,bhcl,bclhp->bchpn", B, decay_states, X)
        initial_states = torch.zeros_like(states[:, :1])
        states = torch.cat([initial_states, states], dim=1)
        decay_chunk = torch.exp(segsum(torch.nn.functional.pad(A_cumsum[:, :, :, -1], (1, 0))))
        new_states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)
        states, final_state = new_states[:, :-1], new_states[:, -1]
        state_decay_out = torch.exp(A_cumsum)
        Y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", C, states, state_decay_out)
        Y = (Y_diag + Y_off).reshape(b, l, h, p)
        return Y, final_state


def get_inputs():
    X = torch.randn(batch_size, seq_len, n_heads, head_dim)
    A = -torch.rand(batch_size, seq_len, n_heads) * 0.1
    B = torch.randn(batch_size, seq_len, n_heads, d_state)
    C = torch.randn(batch_size, seq_len, n_heads, d_state)
    return [X, A, B, C]


def get_init_inputs():
    return [block_len]
