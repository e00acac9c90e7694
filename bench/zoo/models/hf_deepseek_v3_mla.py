"""DeepSeek-V3 (multi-head latent attention + sigmoid-routed MoE with a shared expert), after
`deepseek-ai/DeepSeek-V3`, shrunk.

MLA: queries through a q_lora_rank bottleneck, keys/values through a kv_lora_rank latent, each head split into
a RoPE part and a no-RoPE part; YaRN rope scaling as published. MoE: grouped top-k routing (n_group/topk_group)
over routed experts plus a shared expert; first_k_dense_replace=1 makes layer 0 dense and layer 1 MoE.
Shrunk: hidden 7168 -> 128, 61 layers -> 2, 128 heads -> 4, q_lora_rank 1536 -> 64, kv_lora_rank 512 -> 32,
qk_nope_head_dim 128 -> 32, qk_rope_head_dim 64 -> 16, v_head_dim 128 -> 32, intermediate 18432 -> 256,
moe_intermediate 2048 -> 64, 256 routed experts -> 8 (top-8 -> top-2, 8 groups -> 4, topk_group 4 -> 2),
first_k_dense_replace 3 -> 1, vocab 129280 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded. Output: logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import DeepseekV3Config, DeepseekV3ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DeepseekV3ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # deepseek-ai/DeepSeek-V3 config.json. Kept: silu, rms_norm_eps 1e-6, 1 shared expert, routed_scaling_factor
    # 2.5, norm_topk_prob True, YaRN rope (theta 1e4, factor 40, original 4096, beta_fast 32, beta_slow 1,
    # mscale 1, mscale_all_dim 1), max_position_embeddings 163840, untied head, bos 0 / eos 1.
    return [DeepseekV3Config(
        vocab_size=vocab_size,  # published 129280
        hidden_size=128,  # published 7168
        intermediate_size=256,  # published 18432 (dense layers)
        moe_intermediate_size=64,  # published 2048
        num_hidden_layers=2,  # published 61
        num_attention_heads=4,  # published 128
        num_key_value_heads=4,  # published 128 (= heads)
        q_lora_rank=64,  # published 1536
        kv_lora_rank=32,  # published 512
        qk_nope_head_dim=32,  # published 128
        qk_rope_head_dim=16,  # published 64
        v_head_dim=32,  # published 128
        n_shared_experts=1,
        n_routed_experts=8,  # published 256
        num_experts_per_tok=2,  # published 8
        n_group=4,  # published 8
        topk_group=2,  # published 4
        first_k_dense_replace=1,  # published 3
        routed_scaling_factor=2.5,
        norm_topk_prob=True,
        hidden_act="silu",
        rms_norm_eps=1e-6,
        max_position_embeddings=163840,
        rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0,
                         "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0,
                         "mscale": 1.0, "mscale_all_dim": 1.0},
        tie_word_embeddings=False,
        bos_token_id=0,
        eos_token_id=1,
    )]
