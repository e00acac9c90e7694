"""TTT-Linear (Sun et al. 2024, "Learning to (Learn at Test Time): RNNs with Expressive Hidden States"), readable
reference of a small causal LM with the Transformer backbone ("TTT-Linear (T)"), after the paper and the official
test-time-training/ttt-lm-pytorch `TTTLinear` (its scan over mini-batches written as a plain Python loop).

The hidden state of the token mixer is the weight (W, b) of a linear inner model, trained while the sequence is
read by gradient descent on a self-supervised reconstruction loss. Per head h (d = head dim), with x_t the layer
input, the outer-loop-learned projections q_t = theta_Q x_t, k_t = theta_K x_t, v_t = theta_V x_t (RoPE on q and k
with the position inside the mini-batch, t mod b; rotation of adjacent pairs as in the JAX original):
    inner model      f(k; W, b) = k + LN(k W + b)            (LayerNorm with per-head learned gamma, beta)
    inner loss       l_t(W, b) = 1/2 || LN(k_t W + b) - (v_t - k_t) ||^2   (= 1/2 ||f(k_t) - v_t||^2)
    its gradient     g_t = dl_t / dZ at Z = k_t W + b (the LayerNorm backward written out):
                     zhat = (Z - mean) / std, dy = gamma * (gamma * zhat + beta - (v_t - k_t)),
                     g_t = (d dy - sum(dy) - zhat sum(dy * zhat)) / (d std);   dl/dW = k_t^T g_t, dl/db = g_t.
Mini-batch TTT (b = 16 tokens; every gradient of a mini-batch is taken at (W_0, b_0), the weights left by the
previous mini-batch), for the i-th token of the mini-batch:
    W_i = W_0 - sum_{j <= i} eta_ij k_j^T g_j,   b_i = b_0 - sum_{j <= i} eta_ij g_j,   z_i = q_i + LN(q_i W_i + b_i)
with the learnable, data-dependent inner learning rate
    eta_ij = tau_i * (eta_base / d) * sigmoid(w_h . x_j + c_h),   tau_i = max(1 / (i + 1) + delta_i, 0)
(eta_base = 1, w_h ~ N(0, 0.02^2), c_h = 0, delta learnable from 0: a per-token rate, averaged over the mini-batch).
Dual form (what runs inside each mini-batch: no per-token W_i is materialised):
    Q W_i + b_i (all i at once) = Q W_0 - (eta * tril(Q K^T)) G + b_0 - tril(eta) G      (G: rows g_j)
and the weights carried to the next mini-batch are those of its last token:
    W <- W_0 - sum_j eta_{b-1,j} k_j^T g_j,   b <- b_0 - sum_j eta_{b-1,j} g_j.
W_0, b_0 of the first mini-batch are learned parameters (W ~ N(0, 0.02^2), b = 0), copied per sample. A Python loop
over the mini-batches carries (W, b) per sample and head. Layer output: W_o LayerNorm(concat_heads z) (eps 1e-6).
LM (the official Transformer backbone: no pre-conv, no output gate, separate q / k projections): token embedding;
layers of x <- x + TTT(RMSNorm(x)), x <- x + SwiGLU(RMSNorm(x)); final RMSNorm; LM head tied to the embedding
(TTTConfig's tie_word_embeddings=True). Bias-free projections, RMSNorm eps 1e-6, every Linear / Embedding
N(0, 0.02^2).
Shrunk from the official 125M configuration: hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4 (head dim 64 -> 16),
SwiGLU intermediate 2048 -> 176 (ratio 2.67 -> 2.75), vocab 32000 -> 512, sequence 2048 -> 64 (4 mini-batches);
mini-batch size 16, eta_base 1.0 and RoPE theta 10000 kept.

Input: token ids (2, 64). Output: logits (2, 64, 512).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 64
vocab_size = 512
hidden_size = 64
num_heads = 4
num_layers = 2
intermediate_size = 176
mini_batch_size = 16
ttt_base_lr = 1.0
rope_theta = 10000.0
initializer_range = 0.02


def layer_norm(x, gamma, beta, eps=1e-6):
    mu = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return gamma * (x - mu) / torch.sqrt(var + eps) + beta


def layer_norm_l2_grad(z, target, gamma, beta, eps=1e-6):
    """d/dz of 1/2 ||LN(z) - target||^2, per row (the LayerNorm backward written out)."""
    d = z.shape[-1]
    mu = z.mean(dim=-1, keepdim=True)
    var = z.var(dim=-1, keepdim=True, unbiased=False)
    std = torch.sqrt(var + eps)
    z_hat = (z - mu) / std
    grad_y = gamma * z_hat + beta - target
    grad_z_hat = grad_y * gamma
    return (d * grad_z_hat - grad_z_hat.sum(dim=-1, keepdim=True)
            - z_hat * (grad_z_hat * z_hat).sum(dim=-1, keepdim=True)) / (d * std)


def rope_adjacent_pairs(x, positions, theta):
    """Rotate the pairs (x[2i], x[2i+1]) by angle position * theta^(-2i/d). x: (..., T, d), positions: (T,)."""
    d = x.shape[-1]
    inv_freq = 1.0 / (theta ** (torch.arange(0, d, 2, device=x.device).float() / d))
    angles = positions.float()[:, None] * inv_freq[None, :]  # (T, d / 2)
    cos, sin = angles.cos(), angles.sin()
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class TTTLinear(nn.Module):
    def __init__(self, hidden_size, num_heads, mini_batch_size, ttt_base_lr, rope_theta):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.mini_batch_size = mini_batch_size
        self.ttt_base_lr = ttt_base_lr
        self.rope_theta = rope_theta
        H, d = num_heads, self.head_dim
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        # learnable inner learning rate: one linear gate x -> R per head
        self.ttt_lr_weight = nn.Parameter(torch.randn(H, hidden_size) * 0.02)
        self.ttt_lr_bias = nn.Parameter(torch.zeros(H))
        # per-position scale 1 / (i + 1) of the mini-batch, plus a learnable offset
        self.register_buffer("token_idx", 1.0 / torch.arange(1, mini_batch_size + 1).float(), persistent=False)
        self.learnable_token_idx = nn.Parameter(torch.zeros(mini_batch_size))
        # LayerNorm of the inner model (per head)
        self.ttt_norm_weight = nn.Parameter(torch.ones(H, 1, d))
        self.ttt_norm_bias = nn.Parameter(torch.zeros(H, 1, d))
        # initial inner weights W_0, b_0 (learned in the outer loop)
        self.W1 = nn.Parameter(torch.randn(H, d, d) * 0.02)
        self.b1 = nn.Parameter(torch.zeros(H, 1, d))
        self.post_norm = nn.LayerNorm(hidden_size, eps=1e-6)

    def forward(self, x):
        B, T, C = x.shape
        H, d, K = self.num_heads, self.head_dim, self.mini_batch_size
        q = self.q_proj(x).view(B, T, H, d).transpose(1, 2)  # (B, H, T, d)
        k = self.k_proj(x).view(B, T, H, d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, H, d).transpose(1, 2)
        positions = torch.arange(T, device=x.device) % K  # RoPE restarts at every mini-batch
        q = rope_adjacent_pairs(q, positions, self.rope_theta)
        k = rope_adjacent_pairs(k, positions, self.rope_theta)

        # per-token learning rates: lr_j (B, H, T) and the in-mini-batch scale tau_i (K,)
        lr = torch.sigmoid(torch.einsum("btc,hc->bht", x, self.ttt_lr_weight) + self.ttt_lr_bias[:, None])
        lr = self.ttt_base_lr * lr / d
        tau = torch.clamp_min(self.token_idx + self.learnable_token_idx, 0.0)

        W = self.W1.unsqueeze(0).expand(B, -1, -1, -1)  # (B, H, d, d)
        b = self.b1.unsqueeze(0).expand(B, -1, -1, -1)  # (B, H, 1, d)
        gamma, beta = self.ttt_norm_weight, self.ttt_norm_bias
        outputs = []
        for start in range(0, T, K):
            qm, km, vm = q[:, :, start:start + K], k[:, :, start:start + K], v[:, :, start:start + K]
            eta = tau[:, None] * lr[:, :, None, start:start + K]  # (B, H, K, K): eta[i, j] = tau_i * lr_j

            # gradient of the reconstruction loss of every token of the mini-batch, at (W, b)
            z = km @ W + b
            g = layer_norm_l2_grad(z, vm - km, gamma, beta)  # (B, H, K, d)

            # dual form: outputs of the inner model updated through token i, for every i at once
            attn = torch.tril(qm @ km.transpose(-2, -1))  # (B, H, K, K)
            b_bar = b - torch.tril(eta) @ g
            z_bar = qm @ W - (eta * attn) @ g + b_bar
            outputs.append(qm + layer_norm(z_bar, gamma, beta))

            # weights after the whole mini-batch (its last token's row of eta)
            eta_last = eta[:, :, -1, :, None]  # (B, H, K, 1)
            W = W - (eta_last * km).transpose(-2, -1) @ g
            b = b - (eta_last * g).sum(dim=-2, keepdim=True)

        out = torch.cat(outputs, dim=2).transpose(1, 2).reshape(B, T, C)
        return self.o_proj(self.post_norm(out))


class SwiGLU(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class TTTBlock(nn.Module):
    def __init__(self, hidden_size, num_heads, intermediate_size, mini_batch_size, ttt_base_lr, rope_theta):
        super().__init__()
        self.seq_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.ttt = TTTLinear(hidden_size, num_heads, mini_batch_size, ttt_base_lr, rope_theta)
        self.ffn_norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.mlp = SwiGLU(hidden_size, intermediate_size)

    def forward(self, x):
        x = x + self.ttt(self.seq_norm(x))
        return x + self.mlp(self.ffn_norm(x))


class Model(nn.Module):
    def __init__(self, vocab_size, hidden_size, num_heads, num_layers, intermediate_size, mini_batch_size,
                 ttt_base_lr, rope_theta, initializer_range):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([
            TTTBlock(hidden_size, num_heads, intermediate_size, mini_batch_size, ttt_base_lr, rope_theta)
            for _ in range(num_layers)
        ])
        self.norm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=initializer_range)
        self.lm_head.weight = self.embed_tokens.weight  # tied

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, hidden_size, num_heads, num_layers, intermediate_size, mini_batch_size, ttt_base_lr,
            rope_theta, initializer_range]
