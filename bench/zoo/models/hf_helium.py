"""Helium (Kyutai's Llama-style decoder: interleaved/GPT-J-style RoPE pairs, rope_theta 1e5, RMSNorm eps 1e-8,
SwiGLU MLP, untied LM head), after `kyutai/helium-1-preview-2b`, shrunk.

Shrunk: hidden 2560 -> 256, intermediate 7040 -> 704, 24 layers -> 2, 20 heads -> 4 (20 KV heads -> 4, so still
full multi-head attention), head_dim 128 -> 64, vocab 48000 -> 1000.
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import HeliumConfig, HeliumForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = HeliumForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # kyutai/helium-1-preview-2b config.json. Kept: rms_norm_eps 1e-8, rope_theta 100000, silu SwiGLU,
    # no attention/MLP biases, untied LM head, pad/bos/eos ids 3/1/2.
    return [HeliumConfig(
        vocab_size=vocab_size,  # published 48000
        hidden_size=256,  # published 2560
        intermediate_size=704,  # published 7040
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 20
        num_key_value_heads=4,  # published 20 (no GQA, kept)
        head_dim=64,  # published 128
        max_position_embeddings=4096,  # published 4096 (kept)
        rms_norm_eps=1e-8,  # published 1e-8 (kept)
        rope_parameters={"rope_type": "default", "rope_theta": 100000.0},  # published rope_theta 100000 (kept)
        tie_word_embeddings=False,  # published false (kept)
    )]
