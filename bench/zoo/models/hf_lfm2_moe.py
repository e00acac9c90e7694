"""LFM2-MoE (Liquid hybrid decoder: most layers are double-gated short causal depthwise convolutions (kernel 3), a
few are GQA attention layers with per-head q/k RMSNorm; after the first dense layers every feed-forward is a
sparse MoE with a sigmoid router, an expert-bias used only for expert selection, normalised top-k weights),
after `LiquidAI/LFM2-8B-A1B`, shrunk.

Shrunk: hidden 2048 -> 256, 24 layers (18 conv, 6 attention) -> 3 layers [conv, conv, attention],
num_dense_layers 2 -> 1 (layer 0 dense, layers 1-2 MoE: both the conv and the attention kind get an MoE),
intermediate 7168 -> 896, moe_intermediate 1792 -> 224, experts 32 -> 8 (top-k 4 kept), 32 heads -> 4,
8 KV heads -> 2 (head_dim 64 kept), vocab 65536 -> 1000.
The short convolution runs its pure-torch path (no causal-conv1d kernel needed).
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Lfm2MoeConfig, Lfm2MoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Lfm2MoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # LiquidAI/LFM2-8B-A1B config.json. Kept: conv_L_cache 3, conv_bias false, use_expert_bias, norm_topk_prob,
    # routed_scaling_factor 1.0, top-4 routing, rope_theta 1e6, norm_eps 1e-5, tied LM head.
    return [Lfm2MoeConfig(
        vocab_size=vocab_size,  # published 65536
        hidden_size=256,  # published 2048
        intermediate_size=896,  # published 7168
        moe_intermediate_size=224,  # published 1792
        num_hidden_layers=3,  # published 24
        layer_types=["conv", "conv", "full_attention"],  # published 18 conv + 6 full_attention
        num_dense_layers=1,  # published 2
        num_experts=8,  # published 32
        num_experts_per_tok=4,  # published 4 (kept)
        use_expert_bias=True,  # published true (kept)
        norm_topk_prob=True,  # published true (kept)
        routed_scaling_factor=1.0,  # published 1.0 (kept)
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        conv_L_cache=3,  # published 3 (kept)
        conv_bias=False,  # published false (kept)
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},  # published rope_theta 1e6 (kept)
        max_position_embeddings=128000,  # published 128000 (kept)
        norm_eps=1e-5,  # published 1e-5 (kept)
        tie_word_embeddings=True,  # published true (kept)
    )]
