"""GLM-4.5 MoE (decoder with a dense first layer then MoE layers: sigmoid router with an expert-score correction
bias, top-k routed SwiGLU experts renormalised and scaled, plus an always-on shared expert; GQA attention with
q/k/v biases and partial RoPE on half of each head), after `zai-org/GLM-4.5-Air`, shrunk.

Shrunk: hidden 4096 -> 128, intermediate (dense layer) 10944 -> 256, 46 layers -> 2 (first_k_dense_replace 1
kept: layer 0 dense, layer 1 MoE), 96 heads -> 4, 8 KV heads -> 2, head_dim 128 -> 64, routed experts 128 -> 8,
top-k 8 -> 2, moe_intermediate 1408 -> 64, 1 shared expert kept, vocab 151552 -> 1000.
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Glm4MoeConfig, Glm4MoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Glm4MoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # zai-org/GLM-4.5-Air config.json. Kept: attention_bias, partial_rotary_factor 0.5, rope_theta 1e6,
    # first_k_dense_replace 1, 1 shared expert, norm_topk_prob, routed_scaling_factor 1.0, n_group/topk_group 1,
    # no qk-norm, rms_norm_eps 1e-5, untied LM head.
    return [Glm4MoeConfig(
        vocab_size=vocab_size,  # published 151552
        hidden_size=128,  # published 4096
        intermediate_size=256,  # published 10944
        num_hidden_layers=2,  # published 46
        num_attention_heads=4,  # published 96
        num_key_value_heads=2,  # published 8
        head_dim=64,  # published 128
        attention_bias=True,  # published true (kept)
        partial_rotary_factor=0.5,  # published 0.5 (kept)
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},  # published rope_theta 1e6 (kept)
        max_position_embeddings=131072,  # published 131072 (kept)
        first_k_dense_replace=1,  # published 1 (kept)
        n_routed_experts=8,  # published 128
        num_experts_per_tok=2,  # published 8
        moe_intermediate_size=64,  # published 1408
        n_shared_experts=1,  # published 1 (kept)
        norm_topk_prob=True,  # published true (kept)
        routed_scaling_factor=1.0,  # published 1.0 (kept)
        n_group=1,  # published 1 (kept)
        topk_group=1,  # published 1 (kept)
        use_qk_norm=False,  # published false (kept)
        tie_word_embeddings=False,  # published false (kept)
    )]
