"""Perceiver IO encoder (a small learned latent array cross-attends once to an arbitrarily long input array,
keys/values projected from the inputs with a padding mask, then a stack of latent self-attention layers
runs on the latents only; qk and v channel widths are set independently of the latent width), after
`deepmind/language-perceiver`, used without preprocessor or decoder (inputs are already d_model features), shrunk.

Shrunk: num_latents 256 -> 32, d_latents 1280 -> 128, d_model 768 -> 64, num_self_attends_per_block 26 -> 2,
8 self/cross heads -> 4, qk_channels 256 -> 64, v_channels 1280 -> 128.
Inputs: inputs (2, 64, 64) (a 64-element array of 64-dim features) and attention_mask (2, 64) whose second
sample is right-padded (5 positions).
Output: latents after the last self-attention layer (2, 32, 128).
"""
import torch
from torch import nn
from transformers import PerceiverConfig, PerceiverModel

batch_size = 2
seq_len = 64
d_model = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PerceiverModel(config)

    def forward(self, inputs, attention_mask):
        return self.model(inputs=inputs, attention_mask=attention_mask).last_hidden_state


def get_inputs():
    inputs = torch.randn(batch_size, seq_len, d_model)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [inputs, attention_mask]


def get_init_inputs():
    # deepmind/language-perceiver config.json (encoder part). Kept: num_blocks 1, cross_attention_shape_for_attention
    # "kv", widening factors 1, use_query_residual True, gelu, layer_norm_eps 1e-12.
    return [PerceiverConfig(
        num_latents=32,  # published 256
        d_latents=128,  # published 1280
        d_model=d_model,  # published 768
        num_blocks=1,
        num_self_attends_per_block=2,  # published 26
        num_self_attention_heads=4,  # published 8
        num_cross_attention_heads=4,  # published 8
        qk_channels=64,  # published 256
        v_channels=128,  # published 1280
    )]
