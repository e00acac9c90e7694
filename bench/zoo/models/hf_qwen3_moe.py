"""Qwen3-MoE (GQA with per-head q/k RMSNorm, every layer a softmax top-k routed MoE without a shared expert),
after `Qwen/Qwen3-30B-A3B`, shrunk.

Shrunk: hidden 2048 -> 128, 48 layers -> 2, 32 heads -> 4, 4 kv heads -> 2, head_dim 128 -> 64 (the published
q width 2x hidden kept), 128 experts -> 8, top-8 -> top-2, moe_intermediate 768 -> 64, vocab 151936 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded. Output: logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Qwen3MoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Qwen/Qwen3-30B-A3B config.json. Kept: silu, rms_norm_eps 1e-6, rope_theta 1e6, norm_topk_prob True,
    # decoder_sparse_step 1 with no mlp_only_layers (all layers MoE), no attention bias, no sliding window,
    # max_position_embeddings 40960, untied head.
    return [Qwen3MoeConfig(
        vocab_size=vocab_size,  # published 151936
        hidden_size=128,  # published 2048
        intermediate_size=384,  # published 6144 (unused: every layer is MoE)
        moe_intermediate_size=64,  # published 768
        num_hidden_layers=2,  # published 48
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 4
        head_dim=64,  # published 128
        num_experts=8,  # published 128
        num_experts_per_tok=2,  # published 8
        norm_topk_prob=True,
        decoder_sparse_step=1,
        mlp_only_layers=[],
        hidden_act="silu",
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        max_position_embeddings=40960,
        use_sliding_window=False,
        tie_word_embeddings=False,
    )]
