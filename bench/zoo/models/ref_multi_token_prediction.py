"""Multi-token prediction (MTP) heads after DeepSeek-V3 (DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", section
2.2), readable reference of the training-time forward: a small causal transformer trunk (the main model, predicting
token i + 1 at position i) followed by D = 2 sequential MTP modules, module k predicting token i + k + 1.

MTP module k (k = 1 .. D) keeps the complete causal chain: at position i it combines the previous depth's
representation h^{k-1}_i (h^0: the main model's output after its final RMSNorm) with the embedding of token i + k,
    h'^k_i = M_k [RMSNorm_e(Emb(t_{i+k})); RMSNorm_h(h^{k-1}_i)]      (concatenation, then a bias-free 2d -> d linear;
                                                                      embedding first, as vLLM's eh_proj reads them)
    h^k = TRM_k(h'^k)                                                  (one causal transformer block of its own)
    logits^k_i = OutHead(RMSNorm_k(h^k_i))                             (its own final norm, the SHARED head)
The embedding table Emb and the output head OutHead are the main model's, shared by every depth (DeepSeek-V3 does not
tie Emb and OutHead to each other; neither does this file). The shifted tokens are written as Megatron-LM's MTP layer
writes them, keeping the length T: at depth k the ids are rolled left by k and the last k positions filled with
token 0, so the logits of every depth are (batch, T, vocab) and can be stacked (a training loss masks depth k's last
k positions, whose target lies past the sequence).
Blocks (trunk and MTP alike): pre-RMSNorm (eps 1e-6), causal multi-head attention with rotate-half RoPE (theta
10000) on Q / K, softmax in float32, bias-free projections; SwiGLU MLP. (DeepSeek-V3's trunk uses MLA and MoE
layers; plain multi-head attention and a dense SwiGLU stand in for them here: the file is about the MTP wiring.)
Inits: PyTorch defaults (Embedding N(0, 1), Linear kaiming-uniform), RMSNorm scales 1.
Sizes: vocab 512 (published 129280), d_model 64 (7168), 4 heads of 16, SwiGLU hidden 176, 2 trunk layers (61),
2 MTP depths (DeepSeek-V3 trains with D = 1; the paper's formulation is for any D), seq 32.

Input: token ids (2, 32). Output: logits (1 + D, batch, seq, vocab) = (3, 2, 32, 512): the main head's (next token)
and each MTP depth's (token i + k + 1), stacked.
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
seq_len = 32
vocab_size = 512
d_model = 64
num_heads = 4
ffn_dim = 176  # 8/3 * d_model rounded up to a multiple of 16
num_layers = 2  # trunk
mtp_depth = 2
rope_theta = 10000.0


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.h = num_heads
        self.d = d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, cos, sin):
        B, T, D = x.shape
        q = self.q_proj(x).view(B, T, self.h, self.d).transpose(1, 2)               # (B, h, T, d)
        k = self.k_proj(x).view(B, T, self.h, self.d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.h, self.d).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        scores = (q @ k.transpose(-1, -2)) * self.d ** -0.5
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
        o = (probs @ v).transpose(1, 2).reshape(B, T, D)
        return self.o_proj(o)


class SwiGLU(nn.Module):
    def __init__(self, d_model, hidden):
        super().__init__()
        self.w1 = nn.Linear(d_model, hidden, bias=False)
        self.w3 = nn.Linear(d_model, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, d_model, num_heads, ffn_dim):
        super().__init__()
        self.attn_norm = nn.RMSNorm(d_model, eps=1e-6)
        self.attn = Attention(d_model, num_heads)
        self.ffn_norm = nn.RMSNorm(d_model, eps=1e-6)
        self.ffn = SwiGLU(d_model, ffn_dim)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.attn_norm(x), cos, sin)
        return x + self.ffn(self.ffn_norm(x))


class MTPModule(nn.Module):
    """One prediction depth: RMSNorm both inputs, concatenate, project 2d -> d, one block, its own final norm."""

    def __init__(self, d_model, num_heads, ffn_dim):
        super().__init__()
        self.enorm = nn.RMSNorm(d_model, eps=1e-6)
        self.hnorm = nn.RMSNorm(d_model, eps=1e-6)
        self.eh_proj = nn.Linear(2 * d_model, d_model, bias=False)
        self.block = Block(d_model, num_heads, ffn_dim)
        self.norm = nn.RMSNorm(d_model, eps=1e-6)

    def forward(self, prev_hidden, token_embeds, cos, sin):
        h = self.eh_proj(torch.cat([self.enorm(token_embeds), self.hnorm(prev_hidden)], dim=-1))
        h = self.block(h, cos, sin)
        return h, self.norm(h)        # h: next depth's h^{k-1}; normed: into the shared head


class Model(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, ffn_dim, num_layers, mtp_depth, seq_len, rope_theta):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)                        # shared by the MTP modules
        self.layers = nn.ModuleList([Block(d_model, num_heads, ffn_dim) for _ in range(num_layers)])
        self.norm = nn.RMSNorm(d_model, eps=1e-6)
        self.head = nn.Linear(d_model, vocab_size, bias=False)                # shared by the MTP modules
        self.mtp = nn.ModuleList([MTPModule(d_model, num_heads, ffn_dim) for _ in range(mtp_depth)])
        d = d_model // num_heads
        inv_freq = rope_theta ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)     # (d / 2,)
        angles = torch.arange(seq_len, dtype=torch.float32)[:, None] * inv_freq         # (T, d / 2)
        angles = torch.cat((angles, angles), dim=-1)                                     # (T, d) rotate-half layout
        self.register_buffer("rope_cos", angles.cos(), persistent=False)
        self.register_buffer("rope_sin", angles.sin(), persistent=False)

    def forward(self, input_ids):
        T = input_ids.shape[1]
        cos, sin = self.rope_cos[:T], self.rope_sin[:T]

        h = self.embed(input_ids)
        for layer in self.layers:
            h = layer(h, cos, sin)
        h = self.norm(h)                                                      # h^0
        logits = [self.head(h)]                                               # predicts t_{i+1}

        shifted = input_ids
        for module in self.mtp:
            # ids rolled left by one more step, the vacated last position filled with token 0 (Megatron roll_tensor)
            shifted = torch.cat([shifted[:, 1:], torch.zeros_like(shifted[:, :1])], dim=1)
            h, normed = module(h, self.embed(shifted), cos, sin)
            logits.append(self.head(normed))                                  # depth k predicts t_{i+k+1}
        return torch.stack(logits, dim=0)


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, d_model, num_heads, ffn_dim, num_layers, mtp_depth, seq_len, rope_theta]
