"""A pre-norm multi-head self-attention block with a residual connection (example model, level 2).

y = x + out_proj(softmax(q k^T / sqrt(head_dim)) v), with q, k, v projected from LayerNorm(x) by
three separate linear layers. No mask: every position attends to every position.

Inputs:  x [2, 16, 64] float32
Output:  y [2, 16, 64] float32
"""

import math

import torch
import torch.nn as nn

BATCH_SIZE = 2
SEQ_LEN = 16
D_MODEL = 64
NUM_HEADS = 4


class Model(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.norm = nn.LayerNorm(d_model)
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def _split_heads(self, t):
        # [batch, seq, d_model] -> [batch, heads, seq, head_dim]
        batch, seq, _ = t.shape
        return t.view(batch, seq, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        batch, seq, d_model = x.shape
        h = self.norm(x)
        q = self._split_heads(self.q_proj(h))
        k = self._split_heads(self.k_proj(h))
        v = self._split_heads(self.v_proj(h))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        weights = torch.softmax(scores, dim=-1)
        context = torch.matmul(weights, v).transpose(1, 2).reshape(batch, seq, d_model)
        return x + self.out_proj(context)


def get_inputs():
    return [torch.randn(BATCH_SIZE, SEQ_LEN, D_MODEL)]


def get_init_inputs():
    return [D_MODEL, NUM_HEADS]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model(*get_init_inputs()).eval()
    with torch.no_grad():
        y = model(*get_inputs())
    assert y.shape == (BATCH_SIZE, SEQ_LEN, D_MODEL), y.shape
    assert torch.isfinite(y).all(), "non-finite output"
    print("PASS")
