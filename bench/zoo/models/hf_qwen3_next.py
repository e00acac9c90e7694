"""Qwen3-Next hybrid MoE LM, after `Qwen/Qwen3-Next-80B-A3B-Instruct`, shrunk.

Qwen3NextForCausalLM. Layers follow a 3:1 pattern (full_attention_interval 4): three gated DeltaNet linear-attention
layers, then one gated full-attention layer. Gated DeltaNet: one fused projection gives q, k, v and an output gate z
(grouped per key head), another gives beta and the decay input a; q, k, v go through a depthwise causal conv1d
(kernel 4) + SiLU, q and k are L2-normalized, and the chunked gated delta rule (decay g = -exp(A_log) *
softplus(a + dt_bias), write strength sigmoid(b); value heads 2x the key heads) runs over the sequence; the output is
RMSNorm'd per value head and gated by SiLU(z). Padded positions are zeroed before the mixer. Full attention: GQA with
per-head q / k RMSNorm, partial RoPE (a quarter of each head's dims, theta 1e7) and a sigmoid output gate from a
doubled q projection. Every layer's MLP is a softmax top-k routed MoE (renormalized top-k weights) plus a shared
SwiGLU expert scaled by a sigmoid gate. RMSNorms are zero-centered ((1 + w) scale); untied LM head.

Shrunk: hidden 2048 -> 128, 48 layers -> 4 (one period: linear, linear, linear, full), 16 heads -> 4 (2 kv heads
kept), head_dim 256 -> 32 (rotary dims 64 -> 8), linear key heads 16 -> 2, linear value heads 32 -> 4 (2 value heads
per key head kept), linear key / value head dims 128 -> 32, 512 experts -> 8, top-10 -> top-2, moe_intermediate
512 -> 64, shared_expert_intermediate 512 -> 64, intermediate 5120 -> 320 (unused: every layer is MoE),
vocab 151936 -> 1000 (<|endoftext|> 151643 -> 999, <|im_end|> 151645 -> 998).
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad = <|endoftext|>).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Qwen3NextConfig, Qwen3NextForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 999  # <|endoftext|>, published 151643


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Qwen3NextForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, 990, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Qwen/Qwen3-Next-80B-A3B-Instruct config.json. Kept: silu, rms_norm_eps 1e-6, 2 kv heads, partial_rotary_factor
    # 0.25, rope_theta 1e7, max_position_embeddings 262144, linear_conv_kernel_dim 4, decoder_sparse_step 1 with no
    # mlp_only_layers (all layers MoE), norm_topk_prob, router_aux_loss_coef 0.001, no attention bias,
    # initializer_range 0.02, untied LM head.
    return [Qwen3NextConfig(
        vocab_size=vocab_size,  # published 151936
        hidden_size=128,  # published 2048
        intermediate_size=320,  # published 5120
        num_hidden_layers=4,  # published 48
        num_attention_heads=4,  # published 16
        head_dim=32,  # published 256
        linear_key_head_dim=32,  # published 128
        linear_value_head_dim=32,  # published 128
        linear_num_key_heads=2,  # published 16
        linear_num_value_heads=4,  # published 32
        layer_types=["linear_attention"] * 3 + ["full_attention"],  # published: this period x 12
        moe_intermediate_size=64,  # published 512
        shared_expert_intermediate_size=64,  # published 512
        num_experts=8,  # published 512
        num_experts_per_tok=2,  # published 10
        max_position_embeddings=262144,
        rope_parameters={"rope_type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25},
        bos_token_id=999,  # published 151643
        eos_token_id=998,  # published 151645
    )]
