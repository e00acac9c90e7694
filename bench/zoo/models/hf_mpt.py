"""MPT (ALiBi attention, no biases anywhere, LayerNorm without bias, fused Wqkv, GELU MLP, tied head),
after `mosaicml/mpt-7b`, shrunk.

Shrunk: d_model 4096 -> 256, 32 layers -> 2, 32 heads -> 4 (head_dim 128 -> 64), vocab 50432 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded. Output: logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import MptConfig, MptForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MptForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # mosaicml/mpt-7b config.json. Kept: expansion_ratio 4, no_bias, ALiBi (alibi_bias_max 8, no qk_ln, no
    # clip_qkv), max_seq_len 2048, layer_norm_epsilon 1e-5, embedding_fraction 1, no logit_scale, tied head.
    # attn_impl "triton" in the published file is a llm-foundry option; transformers' MptAttention ignores it.
    return [MptConfig(
        vocab_size=vocab_size,  # published 50432
        d_model=256,  # published 4096
        n_layers=2,  # published 32
        n_heads=4,  # published 32
        expansion_ratio=4,
        max_seq_len=2048,
        no_bias=True,
        layer_norm_epsilon=1e-5,
        attn_config={"alibi": True, "alibi_bias_max": 8, "clip_qkv": None, "qk_ln": False,
                     "softmax_scale": None},
    )]
