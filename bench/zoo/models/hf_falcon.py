"""Falcon (parallel attention + MLP from one shared LayerNorm, multi-query attention, RoPE, no biases),
after `tiiuae/falcon-7b`, shrunk.

Shrunk: hidden 4544 -> 256, 32 layers -> 2, 71 heads -> 4 (head_dim 64 kept; 1 shared kv head kept),
vocab 65024 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded. Output: logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import FalconConfig, FalconForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = FalconForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # tiiuae/falcon-7b config.json. Kept: parallel_attn, multi_query, no bias, alibi off (RoPE, theta 1e4),
    # old decoder architecture (one LayerNorm per block), gelu, layer_norm_epsilon 1e-5, tied head,
    # bos = eos = 11.
    return [FalconConfig(
        vocab_size=vocab_size,  # published 65024
        hidden_size=256,  # published 4544
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 71 (head_dim 64 kept)
        multi_query=True,
        parallel_attn=True,
        new_decoder_architecture=False,
        alibi=False,
        bias=False,
        layer_norm_epsilon=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        bos_token_id=11,
        eos_token_id=11,
    )]
