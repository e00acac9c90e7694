"""LongCat-Flash decoder LM (Meituan): each decoder layer holds two attention + dense-MLP sublayers and one
shortcut-connected MoE. The MoE reads the input of the first dense MLP and its output is added only at the end of
the layer, after the second sublayer (so MoE and the second attention can overlap). Attention is DeepSeek-style
multi-head latent attention (queries through a q_lora_rank bottleneck with RMSNorm, keys/values through a
kv_lora_rank latent with RMSNorm plus a single shared RoPE key part, interleaved RoPE on the rope dims) with extra
LoRA scaling: the query (both parts) is multiplied by sqrt(hidden / q_lora_rank), the latent key/value by
sqrt(hidden / kv_lora_rank). The MoE router is a softmax over routed experts plus zero-computation (identity)
experts, top-k with the weights scaled by routed_scaling_factor; tokens routed to an identity expert pass their
input through unchanged (weighted), so each token spends a variable amount of compute. Pre-norm RMSNorm sublayers,
final RMSNorm, untied LM head. After `meituan-longcat/LongCat-Flash-Chat`, shrunk.

LongcatFlashForCausalLM.
Shrunk: hidden 6144 -> 128, 28 layers -> 2 (each with 2 MLA + 2 dense MLP sublayers and a shortcut MoE), 64 heads
-> 4, q_lora_rank 1536 -> 64, kv_lora_rank 512 -> 32, qk_nope_head_dim 128 -> 32, qk_rope_head_dim 64 -> 16,
v_head_dim 128 -> 32, dense ffn 12288 -> 256, expert ffn 2048 -> 64, 512 routed experts -> 8, 256 zero (identity)
experts -> 4 (the published 2:1 kept), top-12 -> top-3, vocab 131072 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 5 tokens. Output: LM logits
(2, 64, 1000).
"""
import torch
from torch import nn
from transformers import LongcatFlashConfig, LongcatFlashForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_id = 0  # the published config sets no pad_token_id; padded positions are masked, any id serves


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LongcatFlashForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 1  # <longcat_s>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_id
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # meituan-longcat/LongCat-Flash-Chat config.json. Kept: silu, rms_norm_eps 1e-5, no attention bias, no router
    # bias, routed_scaling_factor 6, default RoPE theta 1e7, max_position_embeddings 131072, untied head,
    # bos 1 / eos 2.
    return [LongcatFlashConfig(
        vocab_size=vocab_size,  # published 131072
        hidden_size=128,  # published 6144
        num_layers=2,  # published 28
        num_attention_heads=4,  # published 64
        num_key_value_heads=4,  # published 64 (= heads)
        q_lora_rank=64,  # published 1536
        kv_lora_rank=32,  # published 512
        qk_nope_head_dim=32,  # published 128
        qk_rope_head_dim=16,  # published 64
        v_head_dim=32,  # published 128
        head_dim=16,  # published 64 (= qk_rope_head_dim)
        ffn_hidden_size=256,  # published 12288
        expert_ffn_hidden_size=64,  # published 2048
        n_routed_experts=8,  # published 512
        zero_expert_num=4,  # published 256
        moe_topk=3,  # published 12
        routed_scaling_factor=6.0,
        hidden_act="silu",
        rms_norm_eps=1e-5,
        attention_bias=False,
        max_position_embeddings=131072,
        rope_parameters={"rope_type": "default", "rope_theta": 10000000.0},
        tie_word_embeddings=False,
        bos_token_id=1,
        eos_token_id=2,
    )]
