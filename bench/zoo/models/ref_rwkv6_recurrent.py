"""RWKV-6 ("Finch") time mixing, naive recurrent reference: token shift with data-dependent lerp (LoRA
mixers), a data-dependent per-channel decay w_t, the bonus u, and the wkv state carried token by token in
a Python loop; group norm per head and a SiLU gate. After the RWKV-6 paper's reference implementation.

Input: x (batch, seq, d_model). Output: (batch, seq, d_model).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 32
d_model = 64
head_size = 16
lora_dim = 16


class Model(nn.Module):
    def __init__(self, d_model, head_size, lora_dim):
        super().__init__()
        self.n_head = d_model // head_size
        self.head_size = head_size
        self.time_maa_x = nn.Parameter(torch.rand(1, 1, d_model))
        self.time_maa = nn.Parameter(torch.rand(5, 1, 1, d_model))        # w, k, v, r, g
        self.time_maa_w1 = nn.Parameter(torch.randn(d_model, 5 * lora_dim) * 0.01)
        self.time_maa_w2 = nn.Parameter(torch.randn(5, lora_dim, d_model) * 0.01)
        self.time_decay = nn.Parameter(torch.randn(1, 1, d_model) * 0.5 - 5)
        self.time_decay_w1 = nn.Parameter(torch.randn(d_model, lora_dim) * 0.01)
        self.time_decay_w2 = nn.Parameter(torch.randn(lora_dim, d_model) * 0.01)
        self.time_faaaa = nn.Parameter(torch.randn(self.n_head, head_size) * 0.1)
        self.receptance = nn.Linear(d_model, d_model, bias=False)
        self.key = nn.Linear(d_model, d_model, bias=False)
        self.value = nn.Linear(d_model, d_model, bias=False)
        self.gate = nn.Linear(d_model, d_model, bias=False)
        self.output = nn.Linear(d_model, d_model, bias=False)
        self.ln_x = nn.GroupNorm(self.n_head, d_model, eps=64e-5)

    def forward(self, x):
        B, T, C = x.shape
        H, N = self.n_head, self.head_size
        xx = F.pad(x, (0, 0, 1, -1)) - x                      # token shift
        xxx = x + xx * self.time_maa_x
        xxx = torch.tanh(xxx @ self.time_maa_w1).view(B * T, 5, -1).transpose(0, 1)
        xxx = torch.bmm(xxx, self.time_maa_w2).view(5, B, T, -1)
        mw, mk, mv, mr, mg = (x + xx * (self.time_maa[i] + xxx[i]) for i in range(5))
        r = self.receptance(mr).view(B, T, H, N)
        k = self.key(mk).view(B, T, H, N)
        v = self.value(mv).view(B, T, H, N)
        g = F.silu(self.gate(mg))
        w = self.time_decay + torch.tanh(mw @ self.time_decay_w1) @ self.time_decay_w2
        w = torch.exp(-torch.exp(w.float())).view(B, T, H, N)
        u = self.time_faaaa
        state = x.new_zeros(B, H, N, N)
        out = []
        for t in range(T):
            kv = k[:, t].unsqueeze(-1) @ v[:, t].unsqueeze(-2)          # (B, H, N, N)
            out.append((r[:, t].unsqueeze(-2) @ (u.unsqueeze(-1) * kv + state)).squeeze(-2))
            state = w[:, t].unsqueeze(-1) * state + kv
        y = torch.stack(out, dim=1).reshape(B * T, C)
        y = self.ln_x(y).view(B, T, C)
        return self.output(y * g)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, head_size, lora_dim]
