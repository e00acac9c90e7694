"""A small decoder-only transformer language model (example model, level 3).

Token + learned position embeddings, two pre-norm blocks (LayerNorm -> causal multi-head
self-attention -> residual, LayerNorm -> MLP with GELU -> residual), a final RMSNorm and a
linear head that maps back to the vocabulary.

Sizes are tiny on purpose (vocab 128, d_model 64, 4 heads, 2 layers, sequence 16, batch 2) so the
whole model decomposes and verifies in seconds on a CPU.

Inputs:  token ids  [2, 16] int64
Output:  logits     [2, 16, 128] float32
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB_SIZE = 128
D_MODEL = 64
NUM_HEADS = 4
NUM_LAYERS = 2
MLP_HIDDEN = 256
SEQ_LEN = 16
BATCH_SIZE = 2


class RMSNorm(nn.Module):
    """Root-mean-square normalisation with a learned gain (one kernel, semantically)."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x * scale * self.weight


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention where each position only sees itself and earlier positions."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        batch, seq, d_model = x.shape
        q, k, v = self.qkv(x).split(d_model, dim=-1)
        # [batch, seq, d_model] -> [batch, heads, seq, head_dim]
        q = q.view(batch, seq, self.num_heads, self.head_dim).transpose(1, 2)
        k = k.view(batch, seq, self.num_heads, self.head_dim).transpose(1, 2)
        v = v.view(batch, seq, self.num_heads, self.head_dim).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        future = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        out = (weights @ v).transpose(1, 2).reshape(batch, seq, d_model)
        return self.proj(out)


class MLP(nn.Module):
    """Position-wise feed-forward network: expand, GELU, project back."""

    def __init__(self, d_model, hidden):
        super().__init__()
        self.fc_in = nn.Linear(d_model, hidden)
        self.fc_out = nn.Linear(hidden, d_model)

    def forward(self, x):
        return self.fc_out(F.gelu(self.fc_in(x)))


class TransformerBlock(nn.Module):
    """Pre-norm block: x + attn(ln1(x)), then x + mlp(ln2(x))."""

    def __init__(self, d_model, num_heads, hidden):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, num_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, hidden)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x


class Model(nn.Module):
    """Token ids [batch, seq] -> next-token logits [batch, seq, vocab]."""

    def __init__(self, vocab_size, d_model, num_heads, num_layers, mlp_hidden, max_seq_len):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_seq_len, d_model)
        self.blocks = nn.ModuleList(
            [TransformerBlock(d_model, num_heads, mlp_hidden) for _ in range(num_layers)]
        )
        self.final_norm = RMSNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size)

    def forward(self, token_ids):
        positions = torch.arange(token_ids.shape[1], device=token_ids.device)
        x = self.token_embedding(token_ids) + self.position_embedding(positions)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.final_norm(x))


def get_inputs():
    return [torch.randint(0, VOCAB_SIZE, (BATCH_SIZE, SEQ_LEN))]


def get_init_inputs():
    return [VOCAB_SIZE, D_MODEL, NUM_HEADS, NUM_LAYERS, MLP_HIDDEN, SEQ_LEN]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model(*get_init_inputs()).eval()
    with torch.no_grad():
        logits = model(*get_inputs())
    assert logits.shape == (BATCH_SIZE, SEQ_LEN, VOCAB_SIZE), logits.shape
    assert torch.isfinite(logits).all(), "non-finite logits"
    print("PASS")
