"""RWKV-7 "Goose" time mixing (Peng et al. 2025, "RWKV-7 Goose with Expressive Dynamic State Evolution"), one
layer in naive recurrent form, after RWKV-LM's RWKV_Tmix_x070 with the Python-loop RWKV7_OP in place of the CUDA
kernel: token shift with per-channel lerps, low-rank (LoRA) data-dependent decay w (soft-clamped, decay
exp(-exp(w)) in (0.545, 1)), in-context learning rate a, value residual mixing with the first layer's values
(v_first), output gate g; removal key kk = normalize(k * k_k) per head; and per head a (N x N) state updated by the
generalised delta rule, carried token by token in a Python loop,
    S_t = S_{t-1} (diag(w_t) - kk_t^T (a_t * kk_t)) + v_t^T k_t,    o_t = S_t r_t,
then GroupNorm per head, the r.k bonus term (r_k), the gate and the output projection.
Simplified: a single layer (layer_id 1 of 12, so the value residual is active); inits follow RWKV-7 except that the
LoRA down-projections and the output projection are random instead of zero, so every path is exercised.

Shrunk: d_model 128, head size 32 (4 heads), LoRA ranks 32 (gate 64), sequence 64.
Inputs: x (batch, seq, d_model) (the block's ln1 output) and v_first (batch, seq, d_model) (layer 0's values).
Output: (batch, seq, d_model).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
d_model = 128
head_size = 32
layer_id = 1
n_layer = 12


class Model(nn.Module):
    def __init__(self, d_model, head_size, layer_id, n_layer, d_lora=32, d_gate_lora=64):
        super().__init__()
        C, N = d_model, head_size
        H = C // N
        self.n_head, self.head_size = H, N
        ratio_0_to_1 = layer_id / (n_layer - 1)
        ratio_1_to_almost0 = 1.0 - layer_id / n_layer
        ddd = (torch.arange(C, dtype=torch.float32) / C).view(1, 1, C)
        self.x_r = nn.Parameter(1.0 - ddd ** (0.2 * ratio_1_to_almost0))
        self.x_w = nn.Parameter(1.0 - ddd ** (0.9 * ratio_1_to_almost0))
        self.x_k = nn.Parameter(1.0 - ddd ** (0.7 * ratio_1_to_almost0))
        self.x_v = nn.Parameter(1.0 - ddd ** (0.7 * ratio_1_to_almost0))
        self.x_a = nn.Parameter(1.0 - ddd ** (0.9 * ratio_1_to_almost0))
        self.x_g = nn.Parameter(1.0 - ddd ** (0.2 * ratio_1_to_almost0))
        n = torch.arange(C, dtype=torch.float32)
        linear = n / (C - 1) - 0.5
        zigzag = ((n % N) - (N - 1) / 2) / ((N - 1) / 2)
        zigzag = zigzag * zigzag.abs()
        www = -6 + 6 * (n / (C - 1)) ** (1 + 1 * ratio_0_to_1 ** 0.3)

        def lora(r):
            return (nn.Parameter(torch.randn(C, r) * C ** -0.5), nn.Parameter(torch.randn(r, C) * 0.1 * r ** -0.5))

        self.w0 = nn.Parameter((www + 0.5 + zigzag * 2.5).view(1, 1, C))
        self.w1, self.w2 = lora(d_lora)
        self.a0 = nn.Parameter((-0.19 + zigzag * 0.3 + linear * 0.4).view(1, 1, C))
        self.a1, self.a2 = lora(d_lora)
        self.v0 = nn.Parameter((0.73 - linear * 0.4).view(1, 1, C))
        self.v1, self.v2 = lora(d_lora)
        self.g1, self.g2 = lora(d_gate_lora)
        self.k_k = nn.Parameter((0.71 - linear * 0.1).view(1, 1, C))
        self.k_a = nn.Parameter(torch.full((1, 1, C), 1.02))
        self.r_k = nn.Parameter(torch.full((H, N), -0.04))
        self.receptance = nn.Linear(C, C, bias=False)
        self.key = nn.Linear(C, C, bias=False)
        self.value = nn.Linear(C, C, bias=False)
        self.output = nn.Linear(C, C, bias=False)
        self.ln_x = nn.GroupNorm(H, C, eps=64e-5)
        with torch.no_grad():
            self.receptance.weight.uniform_(-0.5 / C ** 0.5, 0.5 / C ** 0.5)
            self.key.weight.uniform_(-0.05 / C ** 0.5, 0.05 / C ** 0.5)
            self.value.weight.uniform_(-0.5 / C ** 0.5, 0.5 / C ** 0.5)
            self.output.weight.uniform_(-0.5 / C ** 0.5, 0.5 / C ** 0.5)

    def forward(self, x, v_first):
        B, T, C = x.shape
        H, N = self.n_head, self.head_size
        xx = F.pad(x, (0, 0, 1, -1)) - x                                # token shift
        xr, xw, xk, xv, xa, xg = (x + xx * m for m in (self.x_r, self.x_w, self.x_k, self.x_v, self.x_a, self.x_g))
        r = self.receptance(xr)
        w = -F.softplus(-(self.w0 + torch.tanh(xw @ self.w1) @ self.w2)) - 0.5   # soft-clamp to (-inf, -0.5)
        k = self.key(xk)
        v = self.value(xv)
        v = v + (v_first - v) * torch.sigmoid(self.v0 + (xv @ self.v1) @ self.v2)   # value residual
        a = torch.sigmoid(self.a0 + (xa @ self.a1) @ self.a2)          # in-context learning rate
        g = torch.sigmoid(xg @ self.g1) @ self.g2
        kk = F.normalize((k * self.k_k).view(B, T, H, N), dim=-1, p=2.0).view(B, T, C)
        k = k * (1 + (a - 1) * self.k_a)

        # generalised delta rule, token by token: state (B, H, N_value, N_key)
        decay = torch.exp(-torch.exp(w)).view(B, T, H, N)
        rr, kk_, vv = r.view(B, T, H, N), k.view(B, T, H, N), v.view(B, T, H, N)
        aa, bb = (-kk).view(B, T, H, N), (kk * a).view(B, T, H, N)
        state = x.new_zeros(B, H, N, N)
        out = []
        for t in range(T):
            sa = state @ aa[:, t].unsqueeze(-1)                         # (B, H, N, 1)
            state = state * decay[:, t].unsqueeze(-2) + sa @ bb[:, t].unsqueeze(-2) \
                + vv[:, t].unsqueeze(-1) @ kk_[:, t].unsqueeze(-2)
            out.append((state @ rr[:, t].unsqueeze(-1)).squeeze(-1))
        y = torch.stack(out, dim=1).reshape(B * T, C)

        y = self.ln_x(y).view(B, T, C)
        y = y + ((rr * kk_ * self.r_k).sum(-1, keepdim=True) * vv).view(B, T, C)
        return self.output(y * g)


def get_inputs():
    x = torch.randn(batch_size, seq_len, d_model)
    v_first = torch.randn(batch_size, seq_len, d_model) * 0.3
    return [x, v_first]


def get_init_inputs():
    return [d_model, head_size, layer_id, n_layer]
