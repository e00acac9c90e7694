"""Apertus decoder LM (Swiss AI; a Llama-style GQA decoder with RoPE, but: a non-gated MLP, down(xIELU(up(x))),
whose xIELU activation has two learned scalars per layer (alpha_p, alpha_n through softplus: a quadratic
alpha_p*x^2 + beta*x branch for x > 0 and an expm1-based (expm1(min(x, eps)) - x)*alpha_n + beta*x branch for
x <= 0); QK-norm (per-head RMSNorm of queries and keys before RoPE); pre-norm blocks with RMSNorm; Llama-3 RoPE
frequency scaling; final RMSNorm; untied LM head), after `swiss-ai/Apertus-8B-2509`, shrunk.

ApertusForCausalLM.
Shrunk: hidden 4096 -> 128, 32 layers -> 2, 32 heads -> 4, 8 kv heads -> 2 (GQA ratio 4 -> 2), head_dim
128 -> 32, intermediate 21504 -> 672 (the published 5.25x kept), vocab 131072 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 5 tokens (pad id 3 as
published). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import ApertusConfig, ApertusForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 3


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ApertusForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 1  # <s>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # swiss-ai/Apertus-8B-2509 config.json. Kept: hidden_act "xielu", rms_norm_eps 1e-5, no attention / MLP bias,
    # llama3 RoPE (theta 1.2e7, factor 8, original 8192, low_freq_factor 1, high_freq_factor 4),
    # max_position_embeddings 65536, untied head, bos 1 / pad 3.
    return [ApertusConfig(
        vocab_size=vocab_size,  # published 131072
        hidden_size=128,  # published 4096
        intermediate_size=672,  # published 21504
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        hidden_act="xielu",
        max_position_embeddings=65536,
        rms_norm_eps=1e-5,
        attention_bias=False,
        tie_word_embeddings=False,
        rope_parameters={"rope_type": "llama3", "rope_theta": 12000000.0, "factor": 8.0,
                         "original_max_position_embeddings": 8192, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0},
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=pad_token_id,
    )]
