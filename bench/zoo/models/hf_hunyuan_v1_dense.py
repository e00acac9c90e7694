"""Hunyuan V1 Dense (Llama-style GQA decoder with per-head RMSNorm on queries and keys applied AFTER RoPE, and
NTK-alpha RoPE: the "dynamic" rope_scaling with a fixed alpha stretches the base to theta * alpha^(d/(d-2))),
after `tencent/Hunyuan-7B-Instruct`, shrunk.

Shrunk: hidden 4096 -> 256, intermediate 14336 -> 896, 32 layers -> 2, 32 heads -> 4, 8 KV heads -> 2
(head_dim 128 -> 64), vocab 128167 -> 1000 (pad/eos ids moved inside it).
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import HunYuanDenseV1Config, HunYuanDenseV1ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = HunYuanDenseV1ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # tencent/Hunyuan-7B-Instruct config.json. Kept: q/k RMSNorm, rope_scaling type "dynamic" with alpha 1000
    # (theta 10000), rms_norm_eps 1e-5, silu SwiGLU, no biases, tied LM head.
    return [HunYuanDenseV1Config(
        vocab_size=vocab_size,  # published 128167
        hidden_size=256,  # published 4096
        intermediate_size=896,  # published 14336
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        head_dim=64,  # published 128
        max_position_embeddings=32768,  # published 32768 (kept)
        rope_parameters={  # published rope_theta 10000 + rope_scaling {type: dynamic, alpha: 1000, factor: 1} (kept)
            "rope_type": "dynamic",
            "rope_theta": 10000.0,
            "alpha": 1000.0,
            "factor": 1.0,
        },
        rms_norm_eps=1e-5,  # published 1e-5 (kept)
        pad_token_id=999,  # published 127961
        eos_token_id=998,  # published 127960
        tie_word_embeddings=True,  # published true (kept)
    )]
