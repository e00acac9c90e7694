"""dots.llm1 (rednote-hilab's fine-grained MoE decoder LM: a Qwen-style attention block (multi-head attention with
RMSNorm on each head's queries and keys (QK-norm) before RoPE with base 1e7, no biases) and a DeepSeek-V3-style
MoE: the first layer(s) keep a dense SwiGLU MLP, later layers use sigmoid-scored top-k routing (the top-k choice
on scores plus a per-expert correction bias, the gating weights taken from the raw sigmoid scores, renormalised
over the chosen experts and scaled by routed_scaling_factor 2.5) over small routed SwiGLU experts, plus a shared
SwiGLU expert (width n_shared_experts x moe_intermediate) that every token goes through; untied LM head), after
`rednote-hilab/dots.llm1.inst`, shrunk.

Dots1ForCausalLM.
Shrunk: hidden 4096 -> 128, 62 layers -> 3 (first_k_dense_replace 1 kept: layer 0 dense, layers 1-2 MoE),
32 heads -> 4 (head_dim 128 -> 32, kv heads = heads as published), dense intermediate 10944 -> 256,
moe_intermediate 1408 -> 64, 128 routed experts -> 8, top-6 -> top-2, 2 shared experts kept,
vocab 152064 -> 1000; max_window_layers 62 -> 3 (= num_hidden_layers, so as published no layer uses sliding
window attention).
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 5 tokens.
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Dots1Config, Dots1ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
num_hidden_layers = 3


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Dots1ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size - 1, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = vocab_size - 1  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # rednote-hilab/dots.llm1.inst config.json. Kept: silu, rms_norm_eps 1e-5, rope_theta 1e7 (default rope),
    # max_position_embeddings 32768, attention_bias False, first_k_dense_replace 1, n_shared_experts 2,
    # norm_topk_prob True, routed_scaling_factor 2.5, sigmoid scoring with the correction bias ("noaux_tc"),
    # n_group / topk_group 1 (ungrouped routing; null in the published file), untied head.
    return [Dots1Config(
        vocab_size=vocab_size,  # published 152064
        hidden_size=128,  # published 4096
        intermediate_size=256,  # published 10944 (dense layer)
        moe_intermediate_size=64,  # published 1408
        num_hidden_layers=num_hidden_layers,  # published 62
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32 (= heads)
        n_shared_experts=2,
        n_routed_experts=8,  # published 128
        num_experts_per_tok=2,  # published 6
        n_group=1,
        topk_group=1,
        first_k_dense_replace=1,
        norm_topk_prob=True,
        routed_scaling_factor=2.5,
        hidden_act="silu",
        max_position_embeddings=32768,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000000.0},
        attention_bias=False,
        max_window_layers=num_hidden_layers,  # published 62 (= num_hidden_layers)
        tie_word_embeddings=False,
    )]
