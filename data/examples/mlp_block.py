"""A pre-norm feed-forward block with a residual connection (example model, level 2).

y = x + fc2(GELU(fc1(LayerNorm(x)))), the MLP half of a transformer layer.

Inputs:  x [2, 16, 64] float32
Output:  y [2, 16, 64] float32
"""

import torch
import torch.nn as nn

BATCH_SIZE = 2
SEQ_LEN = 16
D_MODEL = 64
HIDDEN = 256


class Model(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, d_model)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


def get_inputs():
    return [torch.randn(BATCH_SIZE, SEQ_LEN, D_MODEL)]


def get_init_inputs():
    return [D_MODEL, HIDDEN]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model(*get_init_inputs()).eval()
    with torch.no_grad():
        y = model(*get_inputs())
    assert y.shape == (BATCH_SIZE, SEQ_LEN, D_MODEL), y.shape
    assert torch.isfinite(y).all(), "non-finite output"
    print("PASS")
