"""DBRX MoE LM, after `databricks/dbrx-base`, shrunk.

DbrxForCausalLM. Blocks of bias-free LayerNorm -> GQA attention -> residual -> bias-free LayerNorm -> MoE -> residual;
attention uses one fused Wqkv projection whose output is clamped to [-clip_qkv, clip_qkv] (clip_qkv 8) before the
split into q / k / v, then RoPE (theta 5e5). The FFN is a fine-grained MoE: 16 SwiGLU experts, top-4 of a softmax
router, the top-4 weights renormalized by their L1 norm (moe_normalize_expert_weights 1); the expert weights are
stored as three stacked (experts * ffn_hidden, d_model) matrices w1 / v1 / w2. Final bias-free LayerNorm, untied
LM head.

Shrunk: d_model 6144 -> 128, 40 layers -> 2, 48 heads -> 4, 8 kv heads -> 2, head_dim 128 -> 32,
ffn_hidden_size (per expert) 10752 -> 64, vocab 100352 -> 1000 (<|endoftext|> 100257 -> 998, <|pad|> 100277 -> 999).
The 16 experts and top-4 routing are kept.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad = <|pad|>).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import DbrxConfig, DbrxForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 999  # <|pad|>, published 100277


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DbrxForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, 990, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # databricks/dbrx-base config.json. Kept: clip_qkv 8, rope_theta 5e5, 16 experts with top-4 routing, silu GLU
    # experts, moe_normalize_expert_weights 1, moe_jitter_eps 0.01 (training only), moe_loss_weight 0.05,
    # max_seq_len 32768, no dropout, initializer_range 0.02, untied LM head.
    return [DbrxConfig(
        d_model=128,  # published 6144
        n_heads=4,  # published 48
        n_layers=2,  # published 40
        max_seq_len=32768,
        vocab_size=vocab_size,  # published 100352
        attn_config={
            "clip_qkv": 8,
            "kv_n_heads": 2,  # published 8
            "rope_theta": 500000.0,
        },
        ffn_config={
            "ffn_hidden_size": 64,  # published 10752
            "moe_num_experts": 16,
            "moe_top_k": 4,
            "moe_jitter_eps": 0.01,
            "moe_loss_weight": 0.05,
        },
        rope_parameters={"rope_type": "default", "rope_theta": 500000.0},
        pad_token_id=pad_token_id,  # published 100277
        eos_token_id=998,  # published 100257
    )]
