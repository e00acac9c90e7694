"""BLOOM (ALiBi positional bias, embedding LayerNorm, tied LM head), after `bigscience/bloom-560m`, shrunk.

Shrunk: hidden 1024 -> 256, 24 layers -> 2, 16 heads -> 4 (head_dim 64 kept), vocab 250880 -> 1000.
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import BloomConfig, BloomForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BloomForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # bigscience/bloom-560m config.json. Kept: layer_norm_epsilon 1e-5, pre-LN residuals
    # (apply_residual_connection_post_layernorm False), tied head, bos 1 / eos 2 / pad 3, no dropout.
    return [BloomConfig(
        vocab_size=vocab_size,  # published 250880
        hidden_size=256,  # published 1024
        n_layer=2,  # published 24
        n_head=4,  # published 16 (head_dim 64 kept)
        layer_norm_epsilon=1e-5,
        apply_residual_connection_post_layernorm=False,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=3,
        hidden_dropout=0.0,
        attention_dropout=0.0,
    )]
