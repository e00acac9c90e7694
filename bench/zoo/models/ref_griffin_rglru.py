"""Griffin / Hawk recurrent residual blocks with the Real-Gated Linear Recurrent Unit (De et al. 2024, "Griffin:
Mixing Gated Linear Recurrences with Local Attention for Efficient Language Models"), naive reference with the
recurrence evaluated one time step at a time in a Python loop.

Residual block (pre-norm): x <- x + RecurrentBlock(RMSNorm(x)); x <- x + GatedMLP(RMSNorm(x)).
Recurrent block: two branches from the normalised input, GeLU(W_y x) and W_x x -> causal depthwise Conv1D
(temporal width 4) -> RG-LRU; their product goes through the output projection W_o.
RG-LRU, with block-diagonal gate weights (one block per head) as in the paper:
    r_t = sigmoid(W_a x_t + b_a)                  recurrence gate
    i_t = sigmoid(W_x x_t + b_x)                  input gate
    a_t = sigma(Lambda)^(c r_t),  c = 8           computed as log a_t = -c r_t softplus(-Lambda)
    h_t = a_t * h_{t-1} + sqrt(1 - a_t^2) * (i_t * x_t),  h_{-1} = 0
with Lambda initialised so that a^c is uniform in [0.9, 0.999]. Follows the paper's equations; the segment-start
reset of the official RecurrentGemma code (multiplier 1 instead of sqrt(1 - a_t^2) at t = 0) is left out.
Gated MLP: W_down(GeLU(W_gate x) * W_up x), expansion 3. Two residual blocks (Hawk = recurrent blocks only), a
final RMSNorm.
Sizes: d_model 64, RNN width 96 (~4/3 d_model as in the paper), 4 gate blocks of 24, MLP width 192.

Input: x (2, 32, 64) = (batch, seq, d_model). Output: (2, 32, 64).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 32
d_model = 64
lru_width = 96
num_heads = 4
conv_width = 4
mlp_expansion = 3
num_blocks = 2


class BlockDiagonalLinear(nn.Module):
    def __init__(self, width, num_blocks):
        super().__init__()
        self.num_blocks = num_blocks
        self.block_width = width // num_blocks
        bw = self.block_width
        self.weight = nn.Parameter(torch.randn(num_blocks, bw, bw) / math.sqrt(bw))
        self.bias = nn.Parameter(torch.zeros(num_blocks, bw))

    def forward(self, x):
        B, T, _ = x.shape
        x = x.view(B, T, self.num_blocks, self.block_width)
        y = torch.einsum("bthi,hij->bthj", x, self.weight) + self.bias
        return y.reshape(B, T, -1)


class RGLRU(nn.Module):
    def __init__(self, width, num_heads, c=8.0):
        super().__init__()
        self.c = c
        self.input_gate = BlockDiagonalLinear(width, num_heads)
        self.recurrence_gate = BlockDiagonalLinear(width, num_heads)
        # a^c ~ U[0.9, 0.999]  ->  a = (a^c)^(1/c),  Lambda = logit(a)
        a = torch.empty(width).uniform_(0.9, 0.999) ** (1.0 / c)
        self.a_param = nn.Parameter(torch.log(a) - torch.log1p(-a))

    def forward(self, x):
        B, T, D = x.shape
        r = torch.sigmoid(self.recurrence_gate(x))
        i = torch.sigmoid(self.input_gate(x))
        log_a = -self.c * r * F.softplus(-self.a_param)      # log a_t, (B, T, D)
        a = torch.exp(log_a)
        multiplier = torch.sqrt(-torch.expm1(2.0 * log_a))  # sqrt(1 - a_t^2)
        u = multiplier * (i * x)
        h = x.new_zeros(B, D)
        out = []
        for t in range(T):
            h = a[:, t] * h + u[:, t]
            out.append(h)
        return torch.stack(out, dim=1)


class RecurrentBlock(nn.Module):
    def __init__(self, d_model, lru_width, num_heads, conv_width):
        super().__init__()
        self.linear_y = nn.Linear(d_model, lru_width)
        self.linear_x = nn.Linear(d_model, lru_width)
        self.conv1d = nn.Conv1d(lru_width, lru_width, conv_width, groups=lru_width, bias=True)
        self.rg_lru = RGLRU(lru_width, num_heads)
        self.linear_out = nn.Linear(lru_width, d_model)
        self.conv_width = conv_width

    def forward(self, x):
        y = F.gelu(self.linear_y(x), approximate="tanh")
        z = self.linear_x(x).transpose(1, 2)                          # (B, D_rnn, T)
        z = self.conv1d(F.pad(z, (self.conv_width - 1, 0))).transpose(1, 2)  # causal
        z = self.rg_lru(z)
        return self.linear_out(z * y)


class GatedMLP(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.gate = nn.Linear(d_model, hidden)
        self.up = nn.Linear(d_model, hidden)
        self.down = nn.Linear(hidden, d_model)

    def forward(self, x):
        return self.down(F.gelu(self.gate(x), approximate="tanh") * self.up(x))


class ResidualBlock(nn.Module):
    def __init__(self, d_model, lru_width, num_heads, conv_width, mlp_expansion):
        super().__init__()
        self.temporal_norm = nn.RMSNorm(d_model, eps=1e-6)
        self.temporal = RecurrentBlock(d_model, lru_width, num_heads, conv_width)
        self.mlp_norm = nn.RMSNorm(d_model, eps=1e-6)
        self.mlp = GatedMLP(d_model, mlp_expansion * d_model)

    def forward(self, x):
        x = x + self.temporal(self.temporal_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Model(nn.Module):
    def __init__(self, d_model, lru_width, num_heads, conv_width, mlp_expansion, num_blocks):
        super().__init__()
        self.blocks = nn.ModuleList(
            [ResidualBlock(d_model, lru_width, num_heads, conv_width, mlp_expansion) for _ in range(num_blocks)]
        )
        self.final_norm = nn.RMSNorm(d_model, eps=1e-6)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.final_norm(x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, lru_width, num_heads, conv_width, mlp_expansion, num_blocks]
