"""Forgetting Transformer, FoX (Pro) (Lin et al. 2025, "Forgetting Transformer: Softmax Attention with a Forget
Gate"), readable reference of a small causal LM, after the official zhixuan-lin/forgetting-transformer
ForgettingAttentionLayer / ForgettingTransformerForCausalLM (its Triton forgetting_attention kernel written out as
a dense masked softmax).

Forgetting attention, per head h: a scalar, data-dependent forget gate per token,
    f_t = sigmoid(w_f^h . x_t + b_f^h),   c_t = sum_{l <= t} log f_l   (cumsum of the log-sigmoid, float32),
    o_i = sum_{j <= i} softmax_j(q_i . k_j / sqrt(d_h) + c_i - c_j) v_j
i.e. the attention logit of key j for query i is decayed by D_ij = log prod_{l = j+1}^{i} f_l, added to the logits
as a bias before the causal mask (-inf above the diagonal) and the softmax. No positional encoding (NoPE, as in
FoX: the forget gate supplies the recency bias). The "Pro" block adds, all as in the official layer:
  - QK-norm: q and k each RMS-normalised per head (over its d_h channels) with a learned scale per channel of all
    heads (qk_norm_share_param_across_head=False, the repository default), eps 1e-5;
  - data-dependent key / value shift: k_t <- a_t k_{t-1} + (1 - a_t) k_t with a_t = sigmoid(w_a^h . x_t) per head
    (k_{-1} = 0), the same with its own gate for v (ShiftLinear; applied to the projections, before QK-norm);
  - output normalisation and output gate: o <- GroupRMSNorm_heads(o) * w * sigmoid(W_og x) (eps 1e-6), then W_o.
Projections are bias-free except the forget gate's. Block (pre-norm): x <- x + Attn(RMSNorm(x));
x <- x + W_down(SiLU(gate) * up) with [gate, up] = W_gate_up RMSNorm(x) (one fused Linear); final RMSNorm; untied
bias-free LM head. RMSNorm eps 1e-6.
Inits as the official _init_weights: every Linear and the Embedding N(0, 0.02^2), biases 0 (so the forget gates
start near sigmoid(0) = 0.5), norm scales 1.
Shrunk from the 760M FoX (Pro) configuration of the repository README: hidden 1536 -> 64, 24 layers -> 2, 24 heads
-> 4 (head dim 64 -> 16), MLP intermediate 3584 (hidden_ratio 3.5: 2/3 * 3.5 * hidden, rounded up to a multiple of
256) -> 160 (2/3 * 3.5 * 64 = 149, rounded up to a multiple of 32), vocab 32768 -> 512; seq 64 (trained at 16k).

Input: token ids (2, 64). Output: logits (2, 64, 512).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
vocab_size = 512
hidden_size = 64
num_heads = 4
num_layers = 2
intermediate_size = 160
initializer_range = 0.02


class GroupRMSNorm(nn.Module):
    """RMSNorm of each head's channels on its own, with one learned scale per channel of all heads."""

    def __init__(self, num_heads, hidden_size, eps):
        super().__init__()
        self.num_heads = num_heads
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))

    def forward(self, x):  # (B, T, hidden)
        shape = x.shape
        x = x.view(*shape[:-1], self.num_heads, -1).float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x.reshape(shape) * self.weight


class ShiftLinear(nn.Module):
    """Linear projection followed by a data-dependent per-head shift: y_t <- a_t y_{t-1} + (1 - a_t) y_t."""

    def __init__(self, input_dim, output_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.linear = nn.Linear(input_dim, output_dim, bias=False)
        self.shift_proj = nn.Linear(input_dim, num_heads, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        out = self.linear(x).view(B, T, self.num_heads, -1)
        alpha = torch.sigmoid(self.shift_proj(x).float())[..., None]     # (B, T, H, 1)
        prev = F.pad(out, (0, 0, 0, 0, 1, 0))[:, :-1]                   # out_{t-1}, zero at t = 0
        return (alpha * prev + (1 - alpha) * out).reshape(B, T, -1)


class ForgettingAttention(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = ShiftLinear(hidden_size, hidden_size, num_heads)
        self.v_proj = ShiftLinear(hidden_size, hidden_size, num_heads)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.fgate_proj = nn.Linear(hidden_size, num_heads, bias=True)
        self.ogate_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.output_norm = GroupRMSNorm(num_heads, hidden_size, eps=1e-6)
        self.q_norm = GroupRMSNorm(num_heads, hidden_size, eps=1e-5)
        self.k_norm = GroupRMSNorm(num_heads, hidden_size, eps=1e-5)

    def forward(self, x):
        B, T, D = x.shape
        H, d = self.num_heads, self.head_dim
        q = self.q_norm(self.q_proj(x))
        k = self.k_norm(self.k_proj(x))
        v = self.v_proj(x)
        q, k, v = (t.view(B, T, H, d).transpose(1, 2) for t in (q, k, v))        # (B, H, T, d)

        log_fgate = F.logsigmoid(self.fgate_proj(x).float()).transpose(1, 2)     # (B, H, T)
        log_lambda = torch.cumsum(log_fgate, dim=-1)
        decay_bias = log_lambda[..., :, None] - log_lambda[..., None, :]         # (B, H, T, T): c_i - c_j

        scores = torch.einsum("bhid,bhjd->bhij", q, k) / math.sqrt(d) + decay_bias
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        probs = torch.softmax(scores.float(), dim=-1).to(v.dtype)
        o = torch.einsum("bhij,bhjd->bhid", probs, v).transpose(1, 2).reshape(B, T, D)

        o = self.output_norm(o) * torch.sigmoid(self.ogate_proj(x))
        return self.o_proj(o)


class SwiGLU(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, 2 * intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        gate, y = self.gate_proj(x).chunk(2, dim=-1)
        return self.down_proj(F.silu(gate) * y)


class FoXBlock(nn.Module):
    def __init__(self, hidden_size, num_heads, intermediate_size):
        super().__init__()
        self.attn_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.attn = ForgettingAttention(hidden_size, num_heads)
        self.mlp_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.mlp = SwiGLU(hidden_size, intermediate_size)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Model(nn.Module):
    def __init__(self, vocab_size, hidden_size, num_heads, num_layers, intermediate_size, initializer_range):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList(
            [FoXBlock(hidden_size, num_heads, intermediate_size) for _ in range(num_layers)]
        )
        self.norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=initializer_range)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

    def forward(self, input_ids):
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, hidden_size, num_heads, num_layers, intermediate_size, initializer_range]
