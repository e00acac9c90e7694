"""xLSTM sLSTM block (Beck et al. 2024, "xLSTM: Extended Long Short-Term Memory"), naive reference with the
recurrence evaluated one time step at a time in a Python loop, after the official NX-AI/xlstm sLSTM layer and
its "vanilla" (pure PyTorch) cell.

Block (pre-LayerNorm, post-up-projection): x <- x + sLSTMLayer(LN(x)); x <- x + GatedFFN(LN(x)).
sLSTM layer: a causal depthwise Conv1D (width 4) + SiLU feeds the input and forget gates; the cell input z
and output gate o see the normalised input directly. Each of the four gate pre-activations is a headwise
(block-diagonal) linear map of its input, plus a block-diagonal recurrent term R_g h_{t-1} (one
head_dim x head_dim block per head: memory mixing only inside a head) and a bias. With m the stabiliser:
    i~, f~, z~, o~ = W_g x_t + R_g h_{t-1} + b_g                  g in {i, f, z, o}
    m_t = max(i~_t, log sigmoid(f~_t) + m_{t-1})                 (m_0 = i~_0: the state starts empty)
    i_t = exp(i~_t - m_t),  f_t = exp(log sigmoid(f~_t) + m_{t-1} - m_t)   exponential input gate, stabilised
    c_t = f_t c_{t-1} + i_t tanh(z~_t)                           cell state
    n_t = f_t n_{t-1} + i_t                                      normaliser state (n_t >= 1 by construction)
    h_t = sigmoid(o~_t) c_t / n_t
with (h, c, n, m) = 0 at t = 0. The hidden states go through a per-head group norm (F.group_norm, one group
per head). Gated FFN: proj_down(GELU(gate) * up), proj_up to 2 x 64 (1.3 x d_model rounded up to a multiple
of 64, as in xLSTM), no biases.
Inits as in the official code: headwise gate weights and proj_up N(0, 2 / (5 d_model)) ("small init"),
proj_down N(0, (2 / sqrt(d_model))^2) (Wang init, one block), forget-gate bias power-law spread over each
head (from 5 down to -7: slow and fast forgetting units), other gate biases 0; the recurrent weights use the
official "standard" option, U(-1 / sqrt(d_model), 1 / sqrt(d_model)), instead of the default zeros (which
would leave the h_{t-1} -> gates path dead in an untrained model).
Sizes: d_model 32, 4 heads of 8, sequence 32.

Input: x (2, 32, 32) = (batch, seq, d_model). Output: (2, 32, 32).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 32
d_model = 32
num_heads = 4
conv_width = 4
ffn_dim = 64  # 1.3 * d_model rounded up to a multiple of 64


class HeadwiseLinear(nn.Module):
    """Block-diagonal linear map: each head's slice of the features is projected by its own matrix."""

    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        hd = dim // num_heads
        self.weight = nn.Parameter(torch.randn(num_heads, hd, hd) * math.sqrt(2 / (5 * dim)))

    def forward(self, x):
        y = torch.einsum("bthi,hoi->btho", x.unflatten(-1, (self.num_heads, -1)), self.weight)
        return y.flatten(-2)


class SLSTMLayer(nn.Module):
    def __init__(self, dim, num_heads, conv_width):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hd = dim // num_heads
        self.conv_width = conv_width
        self.conv = nn.Conv1d(dim, dim, conv_width, groups=dim)
        self.w_i = HeadwiseLinear(dim, num_heads)
        self.w_f = HeadwiseLinear(dim, num_heads)
        self.w_z = HeadwiseLinear(dim, num_heads)
        self.w_o = HeadwiseLinear(dim, num_heads)
        # recurrent kernel, per head: h_{t-1} (hd) -> 4 gates x hd
        bound = 1.0 / math.sqrt(dim)
        self.recurrent = nn.Parameter(torch.empty(num_heads, hd, 4, hd).uniform_(-bound, bound))
        bias = torch.zeros(num_heads, 4, hd)
        bias[:, 1] = -(-5.0 + 12.0 * (torch.arange(hd) / (hd - 1)) ** 0.3)  # forget gate, power-law init
        self.bias = nn.Parameter(bias)
        self.norm_weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        B, T, D = x.shape
        H, hd = self.num_heads, self.head_dim
        xc = self.conv(F.pad(x.transpose(1, 2), (self.conv_width - 1, 0))).transpose(1, 2)  # causal
        xc = F.silu(xc)
        wx = torch.stack([self.w_i(xc), self.w_f(xc), self.w_z(x), self.w_o(x)], dim=2)  # (B, T, 4, D)
        wx = wx.view(B, T, 4, H, hd).transpose(2, 3)                                  # (B, T, H, 4, hd)
        h = x.new_zeros(B, H, hd)
        c = x.new_zeros(B, H, hd)
        n = x.new_zeros(B, H, hd)
        m = x.new_zeros(B, H, hd)
        hs = []
        for t in range(T):
            raw = wx[:, t] + torch.einsum("bhi,higj->bhgj", h, self.recurrent) + self.bias  # (B, H, 4, hd)
            i_raw, f_raw, z_raw, o_raw = raw.unbind(dim=2)
            log_f_plus_m = m + F.logsigmoid(f_raw)
            m_new = i_raw if t == 0 else torch.maximum(i_raw, log_f_plus_m)
            i_gate = torch.exp(i_raw - m_new)
            f_gate = torch.exp(log_f_plus_m - m_new)
            c = f_gate * c + i_gate * torch.tanh(z_raw)
            n = f_gate * n + i_gate
            h = torch.sigmoid(o_raw) * c / n
            m = m_new
            hs.append(h)
        y = torch.stack(hs, dim=1).reshape(B * T, D)                                  # (B*T, H*hd)
        y = F.group_norm(y, num_groups=H, weight=self.norm_weight, eps=1e-5)
        return y.view(B, T, D)


class GatedFFN(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.hidden = hidden
        self.proj_up = nn.Linear(dim, 2 * hidden, bias=False)
        self.proj_down = nn.Linear(hidden, dim, bias=False)
        nn.init.normal_(self.proj_up.weight, std=math.sqrt(2 / (5 * dim)))
        nn.init.normal_(self.proj_down.weight, std=2 / math.sqrt(dim))

    def forward(self, x):
        gate, up = self.proj_up(x).split(self.hidden, dim=-1)
        return self.proj_down(F.gelu(gate) * up)


class Model(nn.Module):
    def __init__(self, d_model, num_heads, conv_width, ffn_dim):
        super().__init__()
        self.slstm_norm = nn.LayerNorm(d_model, bias=False)
        self.slstm = SLSTMLayer(d_model, num_heads, conv_width)
        self.ffn_norm = nn.LayerNorm(d_model, bias=False)
        self.ffn = GatedFFN(d_model, ffn_dim)

    def forward(self, x):
        x = x + self.slstm(self.slstm_norm(x))
        return x + self.ffn(self.ffn_norm(x))


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads, conv_width, ffn_dim]
