"""CodeGen decoder LM (Nijkamp et al. 2022, "CodeGen: An Open Large Language Model for Code with Multi-Turn Program
Synthesis", arXiv 2203.13474), after `Salesforce/codegen-350M-mono`, shrunk.

CodeGenForCausalLM. GPT-J-style blocks with a *parallel* residual: one LayerNorm (weight and bias, eps 1e-5) feeds
both the attention and the MLP, and the block returns x + attn(ln(x)) + mlp(ln(x)). Attention has one fused qkv
projection (no bias) laid out for the 4 model-parallel shards CodeGen was trained with (mp_num = 4, hard-coded): the
output is viewed as (..., 4, 3 * hidden / 4) and each shard is split in the order query, *value*, key before the
heads are formed. Rotary embeddings (GPT-J interleaved form: a precomputed sinusoid table indexed by position,
sin / cos repeat_interleave'd over adjacent pairs, rotate_every_two) are applied to the first rotary_dim = 32 dims
of each head only, the rest passed through; output projection without bias. Non-gated MLP with gelu_new (tanh
GELU) between two biased projections. Final LayerNorm, untied LM head *with* a bias.
Shrunk: hidden 1024 -> 512, 20 layers -> 2, 16 heads -> 8 (head_dim 64 and rotary_dim 32 kept, and each of the 4
mp shards still holds 2 heads, 4 published), inner 4096 -> 2048 (n_inner None: 4x hidden, as published),
vocab 51200 -> 1000.
Inputs: input_ids (2, 64) (no bos: the GPT-2 tokenizer adds none), attention_mask with the second sample
right-padded by 5 tokens. The tokenizer has no pad token; users pad with eos (<|endoftext|> = 50256), which lies
outside the shrunk vocab and is remapped to 0. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import CodeGenConfig, CodeGenForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = 1  # as published (never added by the tokenizer)
eos_token_id = 0  # published 50256
pad_token_id = eos_token_id  # no pad token published; pad = eos


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CodeGenForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Salesforce/codegen-350M-mono config.json. Kept: rotary_dim 32, n_inner None (4x), gelu_new,
    # layer_norm_epsilon 1e-5, n_positions = n_ctx = 2048, resid / embd / attn dropout 0, initializer_range 0.02,
    # untied head, bos 1.
    return [CodeGenConfig(
        vocab_size=vocab_size,  # published 51200
        n_positions=2048,
        n_ctx=2048,
        n_embd=512,  # published 1024
        n_layer=2,  # published 20
        n_head=8,  # published 16
        rotary_dim=32,
        n_inner=None,
        activation_function="gelu_new",
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        layer_norm_epsilon=1e-5,
        initializer_range=0.02,
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,  # published 50256
        tie_word_embeddings=False,
    )]
