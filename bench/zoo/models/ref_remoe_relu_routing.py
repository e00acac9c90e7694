"""ReMoE: ReLU-routed Mixture-of-Experts (Wang, Chen & Zhu 2025, "ReMoE: Fully Differentiable Mixture-of-Experts with
ReLU Routing", ICLR 2025, arXiv 2412.14711), in plain PyTorch: a LLaMA-style decoder LM whose MoE layers replace the
TopK-softmax router by a ReLU router. The gate of expert e for token t is
    R_te = ReLU(x_t . w_e)            (no softmax, no top-k, no renormalisation),
so the router is continuous and differentiable everywhere, and each token uses a VARIABLE number of experts: the ones
whose gate is positive (zero gates are exact, so those experts are skipped). The MoE output is sum_e R_te E_e(x_t)
with SwiGLU experts. Sparsity is not imposed by the forward at all but by a load-balanced L1 penalty on the gates,
whose coefficient training adapts (multiplied by alpha^sign(target sparsity - current sparsity) each step) so that
on average k of E experts fire:
    L_reg = 1 / (L T) sum_l sum_t sum_e f_le R_lte,    f_le = E / (k T) sum_t 1[R_lte > 0]
(f_le = how much more often than its fair share expert e of layer l is used). This reference returns that penalty
next to the logits. Dispatch is the reference "loop over experts" form: for each expert, gather the tokens whose
gate is positive (data-dependent counts), run the expert, scale by the gate and index_add back.
Blocks: pre-RMSNorm causal attention with RoPE, pre-RMSNorm ReMoE layer, residual; final RMSNorm, untied head.

Sizes (the paper's LLaMA setting, shrunk): vocab 1000, d_model 64, 2 layers, 4 heads of 16, E = 8 experts of
SwiGLU width 64, target k = 1; batch 2 x 48 tokens. With random weights about half of the gates are positive (the
adaptive L1 term is what drives a trained model to k / E). Input: input_ids (2, 48). Output: (logits (2, 48, 1000),
the load-balanced L1 router penalty ()).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 48
vocab_size = 1000
d_model = 64
num_layers = 2
num_heads = 4
head_dim = 16
num_experts = 8
expert_hidden = 64
target_k = 1
rope_theta = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, positions):
    """Rotate-half RoPE on (b, h, n, d)."""
    half = x.shape[-1] // 2
    inv_freq = rope_theta ** (-torch.arange(half, dtype=torch.float32, device=x.device) / half)
    angles = positions[:, None].float() * inv_freq[None, :]
    cos, sin = angles.cos(), angles.sin()
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * num_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * head_dim, d_model, bias=False)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, num_heads, head_dim).permute(2, 0, 3, 1, 4)
        positions = torch.arange(n, device=x.device)
        q, k = rope(q, positions), rope(k, positions)
        logits = (q @ k.transpose(-1, -2)) / math.sqrt(head_dim)
        causal = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
        o = logits.masked_fill(~causal, float("-inf")).softmax(dim=-1) @ v
        return self.o_proj(o.transpose(1, 2).reshape(b, n, num_heads * head_dim))


class ReluRoutedMoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Linear(d_model, num_experts, bias=False)
        self.gate_up = nn.Parameter(torch.randn(num_experts, d_model, 2 * expert_hidden) / math.sqrt(d_model))
        self.down = nn.Parameter(torch.randn(num_experts, expert_hidden, d_model) / math.sqrt(expert_hidden))

    def forward(self, x):
        """x: (b, n, d) -> (output (b, n, d), this layer's load-balanced L1 penalty ())."""
        shape = x.shape
        tokens = x.reshape(-1, shape[-1])
        gates = F.relu(self.router(tokens))  # (T, E), exact zeros switch experts off
        out = torch.zeros_like(tokens)
        for e in range(num_experts):
            idx = torch.nonzero(gates[:, e] > 0).squeeze(-1)
            if idx.numel() == 0:
                continue
            h_gate, h_up = (tokens[idx] @ self.gate_up[e]).chunk(2, dim=-1)
            y = (F.silu(h_gate) * h_up) @ self.down[e]
            out.index_add_(0, idx, y * gates[idx, e, None])
        num_tokens = tokens.shape[0]
        f = num_experts / (target_k * num_tokens) * (gates > 0).float().sum(0)  # (E,) usage vs fair share
        reg = (f[None, :] * gates).sum() / num_tokens
        return out.view(shape), reg


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = RMSNorm(d_model)
        self.attn = Attention()
        self.norm2 = RMSNorm(d_model)
        self.moe = ReluRoutedMoE()

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        y, reg = self.moe(self.norm2(x))
        return x + y, reg


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block() for _ in range(num_layers))
        self.norm = RMSNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        x = self.embed(input_ids)
        reg = x.new_zeros(())
        for block in self.blocks:
            x, layer_reg = block(x)
            reg = reg + layer_reg
        return self.head(self.norm(x)), reg / num_layers


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return []
