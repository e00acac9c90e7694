"""DeepSeek-V2 decoder LM (multi-head latent attention + DeepSeekMoE), after `deepseek-ai/DeepSeek-V2-Lite`, shrunk.

DeepseekV2ForCausalLM.
MLA: keys and values are compressed jointly into one kv_lora_rank latent per token (kv_a_proj_with_mqa, which also
emits a single shared RoPE key of qk_rope_head_dim, "decoupled RoPE"), RMS-normed, then expanded per head by
kv_b_proj into the no-RoPE key part and the value; queries come straight from q_proj (V2-Lite has no query
bottleneck: q_lora_rank None) and are split into a no-RoPE part and a RoPE part; RoPE is applied in complex form
(interleaved pairs) to the query RoPE part and the shared key, which is broadcast to every head; YaRN rope scaling
as published, with the YaRN mscale folded into the softmax scale. DeepSeekMoE: layer 0 is a dense SwiGLU MLP
(first_k_dense_replace 1), every later layer a softmax-scored top-k routed MoE of fine-grained SwiGLU experts plus 2
always-on shared experts (one SwiGLU of twice the expert width), routed weights not renormalized
(norm_topk_prob False), routed_scaling_factor 1. V2-Lite routes greedily (topk_method "greedy", n_group 1,
topk_group 1), so there is no group-limited selection (that is the 236B DeepSeek-V2's "group_limited_greedy").
Shrunk: hidden 2048 -> 128, 27 layers -> 3 (1 dense + 2 MoE), 16 heads -> 4 (kv heads = heads),
kv_lora_rank 512 -> 32, qk_nope_head_dim 128 -> 32, qk_rope_head_dim 64 -> 16, v_head_dim 128 -> 32,
intermediate (dense layer) 10944 -> 256, moe_intermediate 1408 -> 64, 64 routed experts -> 8, top-6 -> top-2,
vocab 102400 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (the tokenizer pads with
<｜end▁of▁sentence｜>). The published bos (100000) and eos / pad (100001) ids lie outside the shrunk vocab, so they
are remapped to 0 and 1. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import DeepseekV2Config, DeepseekV2ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = 0  # published 100000
eos_token_id = 1  # published 100001 (also the pad token)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DeepseekV2ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = eos_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # deepseek-ai/DeepSeek-V2-Lite config.json. Kept: silu, rms_norm_eps 1e-6, q_lora_rank None, 2 shared experts,
    # first_k_dense_replace 1, greedy routing (n_group 1, topk_group 1), routed_scaling_factor 1,
    # norm_topk_prob False, YaRN rope (theta 1e4, factor 40, original 4096, beta_fast 32, beta_slow 1,
    # mscale 0.707, mscale_all_dim 0.707), max_position_embeddings 163840, no attention bias, untied head.
    return [DeepseekV2Config(
        vocab_size=vocab_size,  # published 102400
        hidden_size=128,  # published 2048
        intermediate_size=256,  # published 10944
        moe_intermediate_size=64,  # published 1408
        num_hidden_layers=3,  # published 27
        num_attention_heads=4,  # published 16
        num_key_value_heads=4,  # published 16 (= heads)
        q_lora_rank=None,
        kv_lora_rank=32,  # published 512
        qk_nope_head_dim=32,  # published 128
        qk_rope_head_dim=16,  # published 64
        v_head_dim=32,  # published 128
        n_shared_experts=2,
        n_routed_experts=8,  # published 64
        num_experts_per_tok=2,  # published 6
        topk_method="greedy",
        n_group=1,
        topk_group=1,
        first_k_dense_replace=1,
        routed_scaling_factor=1.0,
        norm_topk_prob=False,
        hidden_act="silu",
        rms_norm_eps=1e-6,
        max_position_embeddings=163840,
        rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0,
                         "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0,
                         "mscale": 0.707, "mscale_all_dim": 0.707},
        attention_bias=False,
        tie_word_embeddings=False,
        bos_token_id=bos_token_id,  # published 100000
        eos_token_id=eos_token_id,  # published 100001
    )]
