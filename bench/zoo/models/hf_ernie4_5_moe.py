"""ERNIE 4.5 MoE decoder LM (GQA with RoPE on interleaved pairs, computed in float32; first layer a dense SwiGLU MLP,
the rest DeepSeekMoE-style blocks: softmax router in float32 whose top-k expert choice is made on the probabilities
plus a per-expert score-correction bias (the auxiliary-loss-free load-balancing bias, moe_statics) while the gating
weights are the uncorrected probabilities of the chosen experts, renormalized to sum 1 (clamped at 1e-12), SwiGLU
experts, plus 2 shared experts (one SwiGLU of twice the expert width) added for every token; no biases anywhere;
tied embeddings), after `baidu/ERNIE-4.5-21B-A3B-PT`, shrunk.

Ernie4_5_MoeForCausalLM.
Shrunk: hidden 2560 -> 128, 28 layers -> 3 (layer 0 dense, as moe_layer_start_index 1 is published, then 2 MoE
layers), 20 heads -> 4, 4 kv heads -> 2, head_dim 128 -> 32, intermediate (dense layer) 12288 -> 384,
moe_intermediate 1536 -> 64, 64 experts -> 8, top-6 -> top-2, vocab 103424 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad id 0, bos 1 first).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Ernie4_5_MoeConfig, Ernie4_5_MoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0
bos_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Ernie4_5_MoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # baidu/ERNIE-4.5-21B-A3B-PT config.json. Kept: silu, rms_norm_eps 1e-5, rope_theta 5e5, no bias, 2 shared
    # experts, moe_layer_start_index 1, moe_layer_interval 1 (every later layer MoE), moe_norm_min 1e-12,
    # max_position_embeddings 131072, tied embeddings, pad 0 / bos 1 / eos 2.
    return [Ernie4_5_MoeConfig(
        vocab_size=vocab_size,  # published 103424
        hidden_size=128,  # published 2560
        intermediate_size=384,  # published 12288
        moe_intermediate_size=64,  # published 1536
        num_hidden_layers=3,  # published 28
        num_attention_heads=4,  # published 20
        num_key_value_heads=2,  # published 4
        moe_num_experts=8,  # published 64
        moe_k=2,  # published 6
        moe_num_shared_experts=2,
        moe_layer_start_index=1,
        moe_layer_interval=1,
        hidden_act="silu",
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 500000.0},
        max_position_embeddings=131072,
        use_bias=False,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
        bos_token_id=bos_token_id,
        eos_token_id=2,
    )]
