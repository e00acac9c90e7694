"""Llama 4 text decoder (the language model of `meta-llama/Llama-4-Scout-17B-16E`), shrunk.

Llama4ForCausalLM. GQA attention in an iRoPE pattern of 4 layers: three RoPE layers (interleaved-pair rotary as complex
multiplication, llama3-scaled frequencies, theta 5e5) with a weightless RMS "L2" norm on q and k after the rotation,
whose attention is chunked (a token sees only the earlier tokens of its own attention_chunk_size block), then one NoPE
layer: no rotary, no q / k norm, global causal attention, and the queries scaled by the attention temperature
1 + attn_scale * log1p(floor((pos + 1) / floor_scale)). Every layer's FFN is a MoE: a sigmoid-scored top-1 router
(the expert input is pre-multiplied by its router score), SwiGLU experts, plus an always-on shared SwiGLU expert
added in; pre-RMSNorm blocks, final RMSNorm, untied LM head.

Shrunk: hidden 5120 -> 128, 48 layers -> 4 (one period: chunked, chunked, chunked, NoPE global), 40 heads -> 4,
8 kv heads -> 2, head_dim 128 -> 32, 16 experts -> 8 (top-1 kept), expert / shared intermediate 8192 -> 128,
intermediate_size_mlp 16384 -> 256 (unused: every layer is MoE, as published), attention_chunk_size 8192 -> 16 and
floor_scale 8192 -> 16 (both below the 64-token input, so the chunking and the temperature tuning both act),
vocab 202048 -> 1000 (special ids 200000 + k -> 980 + k: <|begin_of_text|> 980, <|end_of_text|> 981,
<|eom|> 987, <|eot|> 988, <|finetune_right_pad_id|> 998).
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad =
<|finetune_right_pad_id|>). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Llama4ForCausalLM, Llama4TextConfig

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 998  # <|finetune_right_pad_id|>, published 200018


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Llama4ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, 980, (batch_size, seq_len))
    input_ids[:, 0] = 980  # <|begin_of_text|>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # meta-llama/Llama-4-Scout-17B-16E config.json, text_config. Kept: silu, rms_norm_eps 1e-5, use_qk_norm,
    # no_rope_layer_interval 4 (every 4th layer NoPE), interleave_moe_layer_step 1 (all layers MoE), top-1 routing,
    # attn_temperature_tuning with attn_scale 0.1, llama3 RoPE scaling (theta 5e5, factor 16, low / high freq
    # factors 1, original max positions 8192), max_position_embeddings 10485760, no attention bias,
    # router_aux_loss_coef 0.001, no router jitter, initializer_range 0.02, untied LM head.
    return [Llama4TextConfig(
        vocab_size=vocab_size,  # published 202048
        hidden_size=128,  # published 5120
        intermediate_size=128,  # published 8192
        intermediate_size_mlp=256,  # published 16384
        num_hidden_layers=4,  # published 48
        num_attention_heads=4,  # published 40
        num_key_value_heads=2,  # published 8
        head_dim=32,  # published 128
        num_local_experts=8,  # published 16
        attention_chunk_size=16,  # published 8192
        floor_scale=16,  # published 8192
        max_position_embeddings=10485760,
        rope_parameters={
            "rope_type": "llama3",
            "rope_theta": 500000.0,
            "factor": 16.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
        },
        pad_token_id=pad_token_id,  # published 200018
        bos_token_id=980,  # published 200000
        eos_token_id=[981, 987, 988],  # published [200001, 200007, 200008]
    )]
