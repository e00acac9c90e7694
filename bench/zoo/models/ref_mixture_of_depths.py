"""Mixture-of-Depths (Raposo et al. 2024, "Mixture-of-Depths: Dynamically allocating compute in transformer-based
language models"), readable reference of expert-choice block routing in a 2-layer causal decoder stack: each
routed layer processes only a fixed-capacity subset of the tokens, the others skip it on the residual stream.

Per routed layer and per sample (sequence length T, capacity C = 50%, so k = T / 2 tokens):
 1. router: a scalar weight per token, r_i = w_r . x_i + b_r (a Linear(d_model, 1));
 2. top-k: torch.topk(r, k) picks the k highest-weighted tokens of the sample; the indices are sorted so the
    chosen tokens keep their sequence (causal) order;
 3. the chosen tokens are gathered into a (batch, k, d_model) sequence and go through the block's two residual
    functions, f(X~) = a + m with a = Attn(LN(X~)) (multi-head self-attention among the chosen tokens, causal
    by their original positions) and m = MLP(LN(X~ + a)) (GELU, ratio 4), pre-LayerNorm;
 4. the update is scaled by the router weight (r_i f_i, eq. 1 of the paper: this puts the router on the
    gradient path) and added back into the residual stream at the chosen positions with scatter_add:
        x_i <- x_i + r_i f_i(X~)   if token i is among the top-k,   x_i <- x_i otherwise.
The top-k over the whole sequence is the non-causal training-time routing of the paper (the per-token
predictor it uses for autoregressive sampling is not modelled). A final LayerNorm ends the stack. No
positional encoding (the input is taken as already position-embedded).
Inits: PyTorch defaults for every Linear (router included) and LayerNorm.
Sizes: d_model 64, 4 heads of 16, MLP 256, seq 32 (16 tokens routed through each layer), 2 layers.

Input: x (2, 32, 64) = (batch, seq, d_model). Output: (2, 32, 64).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 32
d_model = 64
num_heads = 4
mlp_dim = 256
num_layers = 2
capacity = 0.5  # fraction of the tokens each routed block processes


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.h = num_heads
        self.dh = d_model // num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x, pos):  # x (B, k, D), pos (B, k): original positions of the tokens, ascending
        B, K, D = x.shape
        q, k, v = self.qkv(x).view(B, K, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)  # each (B, h, k, dh)
        scores = torch.einsum("bhtd,bhsd->bhts", q, k) * self.dh ** -0.5
        causal = pos[:, :, None] >= pos[:, None, :]                                  # (B, k, k)
        scores = scores.masked_fill(~causal[:, None], float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        o = torch.einsum("bhts,bhsd->bhtd", probs, v).transpose(1, 2).reshape(B, K, D)
        return self.proj(o)


class MoDBlock(nn.Module):
    def __init__(self, d_model, num_heads, mlp_dim, capacity):
        super().__init__()
        self.capacity = capacity
        self.router = nn.Linear(d_model, 1)
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, num_heads)
        self.norm2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, mlp_dim)
        self.fc2 = nn.Linear(mlp_dim, d_model)

    def forward(self, x):
        B, T, D = x.shape
        k = max(1, int(self.capacity * T))
        r = self.router(x).squeeze(-1)                                                # (B, T)
        top = torch.topk(r, k, dim=-1).indices                                        # (B, k), by weight
        idx = torch.sort(top, dim=-1).values                                          # (B, k), causal order
        x_sel = torch.gather(x, 1, idx[:, :, None].expand(B, k, D))                   # (B, k, D)
        r_sel = torch.gather(r, 1, idx)                                               # (B, k)

        a = self.attn(self.norm1(x_sel), idx)
        m = self.fc2(F.gelu(self.fc1(self.norm2(x_sel + a))))
        update = r_sel[:, :, None] * (a + m)                                          # r_i * f_i(X~)
        return x.scatter_add(1, idx[:, :, None].expand(B, k, D), update)


class Model(nn.Module):
    def __init__(self, d_model, num_heads, mlp_dim, num_layers, capacity):
        super().__init__()
        self.layers = nn.ModuleList([MoDBlock(d_model, num_heads, mlp_dim, capacity) for _ in range(num_layers)])
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads, mlp_dim, num_layers, capacity]
