"""Phi-3 (Llama-style decoder with a packed qkv_proj and a packed gate_up_proj, RMSNorm, RoPE), after
`microsoft/Phi-3-mini-4k-instruct`, shrunk.

Shrunk: hidden 3072 -> 128, 32 layers -> 2, 32 heads -> 4 (MHA kept), intermediate 8192 -> 344,
vocab 32064 -> 1064 (the 64 added tokens after the 32000-token base vocab kept at its top: eos / pad
32000 -> 1000). Inputs: input_ids (2, 64), attention_mask with the second sample left-padded (the Phi-3
tokenizer pads left). Output: LM logits (2, 64, 1064).
"""
import torch
from torch import nn
from transformers import Phi3Config, Phi3ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1064
pad_token_id = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Phi3ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, 1000, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, :4] = pad_token_id
    attention_mask[1, :4] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # microsoft/Phi-3-mini-4k-instruct config.json. Kept: silu, rms_norm_eps 1e-5, rope_theta 1e4 (no rope
    # scaling), max / original max positions 4096, sliding_window 2047, untied head, bos 1 / eos 32000 /
    # pad 32000 (moved to 1000 with the vocab).
    return [Phi3Config(
        vocab_size=vocab_size,  # published 32064
        hidden_size=128,  # published 3072
        intermediate_size=344,  # published 8192
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        max_position_embeddings=4096,
        original_max_position_embeddings=4096,
        sliding_window=2047,
        hidden_act="silu",
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        bos_token_id=1,
        eos_token_id=pad_token_id,  # published 32000
        pad_token_id=pad_token_id,  # published 32000
    )]
