"""Granite MoE (Llama-style decoder with a sparse top-k mixture of SwiGLU experts in every layer, parallel-experts
layout, plus the Granite muP-style scalars: embedding_multiplier, attention_multiplier as the softmax scale,
residual_multiplier on each residual branch, logits divided by logits_scaling), after
`ibm-granite/granite-3.0-1b-a400m-base`, shrunk.

GraniteMoeForCausalLM.
Shrunk: hidden 1024 -> 128, 24 layers -> 3, 16 heads -> 4, 8 kv heads -> 2, head_dim 64 -> 32 (and
attention_multiplier 1/64 -> 1/32, published = 1/head_dim), per-expert intermediate 512 -> 64, 32 experts -> 8,
top-8 routing -> top-2, vocab 49152 -> 1000, max_position_embeddings 4096 -> 256.
Inputs: input_ids (2, 32), attention_mask with the second sample left-padded (pad id 0).
Output: LM logits (2, 32, 1000).
"""
import torch
from torch import nn
from transformers import GraniteMoeConfig, GraniteMoeForCausalLM

batch_size = 2
seq_len = 32
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GraniteMoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, :5] = 0  # pad
    attention_mask[1, :5] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # ibm-granite/granite-3.0-1b-a400m-base config.json. Kept: silu, rms_norm_eps 1e-6, rope_theta 1e4,
    # embedding_multiplier 12, residual_multiplier 0.22, logits_scaling 6, no attention bias, tied embeddings,
    # router_aux_loss_coef 1e-3, pad = bos = eos = 0.
    return [GraniteMoeConfig(
        vocab_size=vocab_size,  # published 49152
        hidden_size=128,  # published 1024
        intermediate_size=64,  # published 512 (per expert)
        num_hidden_layers=3,  # published 24
        num_attention_heads=4,  # published 16
        num_key_value_heads=2,  # published 8
        num_local_experts=8,  # published 32
        num_experts_per_tok=2,  # published 8
        embedding_multiplier=12.0,
        attention_multiplier=1.0 / 32,  # published 0.015625 = 1 / head_dim (64)
        residual_multiplier=0.22,
        logits_scaling=6.0,
        hidden_act="silu",
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        max_position_embeddings=256,  # published 4096
        attention_bias=False,
        attention_dropout=0.0,
        router_aux_loss_coef=0.001,
        tie_word_embeddings=True,
        pad_token_id=0,
        bos_token_id=0,
        eos_token_id=0,
    )]
