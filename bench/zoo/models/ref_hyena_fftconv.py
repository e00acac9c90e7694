"""Hyena operator (Poli et al. 2023, "Hyena Hierarchy: Towards Larger Convolutional Language Models"), readable
reference after HazyResearch/safari's HyenaOperator / HyenaFilter / fftconv_ref (one head, one block, no
dropout), with the long convolution computed by FFT.

    x0, x1, v = split(ShortConv(W_in u))           in_proj to 3 streams (order + 1 = 3), then a causal
                                                   depthwise conv of width 3 over all 3 x d_model channels
    h = ExpDecay(t) * FFN(z(t))                    implicit long filter, one per channel, length L
    v = h * (x1 . v) + D . (x1 . v)                long causal convolution (FFT, zero-padded to 2L) + skip D
    y = W_out (x0 . v)
i.e. the order-2 recurrence of the paper (safari's `order=2`: two gates x1, x0 and one implicit filter,
the short conv standing in for the first filter), "." elementwise, "*" causal convolution along time.
Implicit filter: positional features z(t) = [t, cos(2 pi f t'/L), -sin(2 pi f t'/L)] for bands
f in linspace(1e-4, bands - 1, bands) (t in [0, 1], t' = 0..L-1; emb_dim 5 = 2 bands, as in HyenaDNA),
a learned parameter initialised to those values; FFN: Linear(5, 64) -> Sin -> Linear(64, 64) -> Sin ->
Linear(64, 64) -> Sin -> Linear(64, d_model, no bias), one Sin module with a learned frequency per unit
(init 1) shared by the three activations, as in safari; exponential decay window exp(-t |delta_c|), delta
spread over the channels from log(1e-2) / 1.5 (slow) to log(1e-2) / 0.3 (fast), so every filter has
decayed to 1e-2 between 0.3 and 1.5 of the sequence length. FFT convolution as fftconv_ref:
irfft(rfft(u, 2L) * rfft(h, 2L) / 2L, 2L, norm="forward")[..., :L]. D ~ N(0, 1) per channel as in safari;
in_proj, out_proj, the short conv and the filter MLP use PyTorch's default inits.
Sizes: d_model 32, sequence 64 (= l_max), filter MLP width 64.

Input: u (2, 64, 32) = (batch, seq, d_model). Output: (2, 64, 32).
"""
import math

import torch
from torch import nn

batch_size = 2
seq_len = 64
d_model = 32
filter_order = 64
emb_dim = 5
short_filter_order = 3


class Sin(nn.Module):
    def __init__(self, dim, w=1.0):
        super().__init__()
        self.freq = nn.Parameter(w * torch.ones(1, dim))

    def forward(self, x):
        return torch.sin(self.freq * x)


class HyenaFilter(nn.Module):
    """Implicit long filter: FFN over positional features, times an exponential decay window."""

    def __init__(self, channels, seq_len, emb_dim, order, fast_decay_pct=0.3, slow_decay_pct=1.5, target=1e-2):
        super().__init__()
        bands = (emb_dim - 1) // 2
        t = torch.linspace(0, 1, seq_len)[None, :, None]                           # (1, L, 1)
        t_rescaled = torch.linspace(0, seq_len - 1, seq_len)[None, :, None]
        w = 2 * math.pi * t_rescaled / seq_len
        f = torch.linspace(1e-4, bands - 1, bands)[None, None]                     # (1, 1, bands)
        self.z = nn.Parameter(torch.cat([t, torch.cos(f * w), -torch.sin(f * w)], dim=-1))  # (1, L, emb_dim)
        self.register_buffer("t", t)
        act = Sin(order)
        self.implicit_filter = nn.Sequential(
            nn.Linear(emb_dim, order), act,
            nn.Linear(order, order), act,
            nn.Linear(order, order), act,
            nn.Linear(order, channels, bias=False),
        )
        max_decay = math.log(target) / fast_decay_pct
        min_decay = math.log(target) / slow_decay_pct
        self.register_buffer("deltas", torch.linspace(min_decay, max_decay, channels)[None, None])
        self.bias = nn.Parameter(torch.randn(channels))                            # D, the skip term

    def filter(self, L):
        h = self.implicit_filter(self.z[:, :L])                                    # (1, L, C)
        h = h * torch.exp(-self.t[:, :L] * self.deltas.abs())
        return h[0].transpose(0, 1)                                                # (C, L)


def fftconv(u, k, D):
    """Causal convolution of u (B, C, L) with k (C, L) via FFT of size 2L, plus the skip u * D."""
    L = u.shape[-1]
    fft_size = 2 * L
    k_f = torch.fft.rfft(k, n=fft_size) / fft_size
    u_f = torch.fft.rfft(u, n=fft_size)
    y = torch.fft.irfft(u_f * k_f, n=fft_size, norm="forward")[..., :L]
    return y + u * D.unsqueeze(-1)


class Model(nn.Module):
    def __init__(self, d_model, seq_len, filter_order, emb_dim, short_filter_order):
        super().__init__()
        self.d_model = d_model
        self.in_proj = nn.Linear(d_model, 3 * d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        self.short_filter = nn.Conv1d(
            3 * d_model, 3 * d_model, short_filter_order, groups=3 * d_model, padding=short_filter_order - 1
        )
        self.filter_fn = HyenaFilter(d_model, seq_len, emb_dim, filter_order)

    def forward(self, u):
        L = u.shape[1]
        u = self.in_proj(u).transpose(1, 2)                    # (B, 3D, L)
        uc = self.short_filter(u)[..., :L]                     # causal: keep the first L outputs
        x0, x1, v = uc.split(self.d_model, dim=1)
        k = self.filter_fn.filter(L)                           # (D, L)
        v = fftconv(v * x1, k, self.filter_fn.bias)
        y = (v * x0).transpose(1, 2)                           # (B, L, D)
        return self.out_proj(y)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, seq_len, filter_order, emb_dim, short_filter_order]
