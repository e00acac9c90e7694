"""Seed-OSS (ByteDance Seed's dense decoder LM: pre-norm RMSNorm blocks, grouped-query attention with biases on
the q / k / v projections but none on the output projection, an attention width (heads x head_dim) twice the
hidden size, RoPE with a very large base (1e7, for its native 512K context), a SwiGLU MLP, residual dropout after
the attention and MLP outputs (inactive in eval), untied LM head), after `ByteDance-Seed/Seed-OSS-36B-Instruct`,
shrunk.

SeedOssForCausalLM.
Shrunk: hidden 5120 -> 128, 64 layers -> 2, 80 heads -> 8, 8 kv heads -> 2 (GQA kept; 10 -> 4 query heads per
kv head), head_dim 128 -> 32 (so the attention width stays 2 x hidden: 10240 / 5120 -> 256 / 128), intermediate
27648 -> 384, vocab 155136 -> 1000.
Inputs: input_ids (2, 64) starting with <seed:bos> (id 0), attention_mask with the second sample right-padded
by 5 tokens (pad id 1 as published). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import SeedOssConfig, SeedOssForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id, pad_token_id = 0, 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SeedOssForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # ByteDance-Seed/Seed-OSS-36B-Instruct config.json. Kept: silu, rms_norm_eps 1e-6, attention_bias True
    # (q/k/v), attention_out_bias False, mlp_bias False, rope_theta 1e7 (default rope), max_position_embeddings
    # 524288, untied head, bos 0 / pad 1 / eos 2; attention and residual dropout left at the library's 0.1
    # (inactive in eval).
    return [SeedOssConfig(
        vocab_size=vocab_size,  # published 155136
        hidden_size=128,  # published 5120
        intermediate_size=384,  # published 27648
        num_hidden_layers=2,  # published 64
        num_attention_heads=8,  # published 80
        num_key_value_heads=2,  # published 8
        head_dim=32,  # published 128
        hidden_act="silu",
        max_position_embeddings=524288,
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000000.0},
        attention_bias=True,
        attention_out_bias=False,
        mlp_bias=False,
        tie_word_embeddings=False,
        bos_token_id=bos_token_id,
        pad_token_id=pad_token_id,
        eos_token_id=2,
    )]
