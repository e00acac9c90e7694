"""Laguna MoE decoder LM (poolside, `poolside/laguna-XS.2`, LagunaForCausalLM), shrunk: a pre-RMSNorm decoder of
interleaved sliding-window and global GQA attention whose attention output is scaled per head by an unbounded softplus
gate and whose head count changes from layer to layer (num_attention_heads_per_layer: every layer has its own q_proj /
o_proj width and GQA group size over the same kv heads). Attention: q / k RMSNorm per head, RoPE with per-layer-type
parameters (sliding layers theta 1e4 over the whole head, global layers theta 5e5 on the first half of each head only:
partial_rotary_factor 0.5), sliding window on the local layers, then a g_proj Linear of the layer input gives one gate
per head, softplus(g) (not a sigmoid: it can amplify as well as damp) multiplies that head's output before o_proj. The
first layer has a dense SwiGLU MLP; every later one an MoE: router logits (optionally tanh soft-capped) through a
sigmoid, top-k chosen on score + a per-expert correction bias, the chosen sigmoid scores renormalised, the routed sum
scaled by moe_routed_scaling_factor and added to an always-on SwiGLU shared expert. Final RMSNorm, untied LM head.

Shrunk: hidden 2048 -> 64, 40 layers -> 4, 48 heads (8 kv) of 128 -> per layer 8, 4, 4, 8 heads (2 kv) of 16,
intermediate 8192 -> 128, 256 experts of width 512 (top-8) -> 8 of width 32 (top-2), shared expert 512 -> 32, sliding
window 512 -> 16 (64 tokens), vocab 100352 -> 1000.
Kept: softplus per-head gating, the first layer dense, sigmoid routing with the correction bias, routed scaling 1.0,
rope parameters per layer type (theta 5e5 with partial 0.5 on global layers, 1e4 full on sliding ones), silu,
rms_norm_eps 1e-6. The class default makes every layer global; here layers 1 and 2 are sliding-window layers and 0 and
3 global (the pattern is a choice, the window size and the sliding RoPE parameters are the class's).
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 7. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import LagunaConfig, LagunaForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LagunaForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -7:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # poolside/laguna-XS.2 (the LagunaConfig defaults). Kept: gating "per-head" (softplus), mlp_layer_types (first
    # layer dense, the rest sparse), moe_routed_scaling_factor 1.0, no router soft-capping, rope_parameters per layer
    # type, silu, no attention bias, untied LM head.
    return [LagunaConfig(
        vocab_size=vocab_size,  # published 100352
        hidden_size=64,  # published 2048
        intermediate_size=128,  # published 8192
        num_hidden_layers=4,  # published 40
        num_attention_heads=8,  # published 48
        num_attention_heads_per_layer=[8, 4, 4, 8],  # default: num_attention_heads in every layer
        num_key_value_heads=2,  # published 8
        head_dim=16,  # published 128
        layer_types=["full_attention", "sliding_attention", "sliding_attention", "full_attention"],
        sliding_window=16,  # published 512
        num_experts=8,  # published 256
        num_experts_per_tok=2,  # published 8
        moe_intermediate_size=32,  # published 512
        shared_expert_intermediate_size=32,  # published 512
    )]
