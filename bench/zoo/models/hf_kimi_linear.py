"""Kimi Linear hybrid MoE decoder LM (Moonshot AI 2025, "Kimi Linear: An Expressive, Efficient Attention
Architecture", `moonshotai/Kimi-Linear-48B-A3B-Instruct`, KimiLinearForCausalLM), shrunk: three Kimi Delta Attention
(KDA) layers for every one global Multi-head Latent Attention (MLA) layer, DeepSeek-V3-style MoE feed-forwards.
  - KDA layers: q / k / v projections concatenated and passed through one causal depthwise short conv (kernel 4) with
    SiLU, q and k L2-normalised per head, a write strength beta = sigmoid(b_proj x) per head, and a CHANNEL-WISE
    (per key dimension, not per head as in Gated DeltaNet) forget gate from a low-rank f_a / f_b projection:
    g = -exp(A_log) softplus(f_b f_a x + dt_bias). The gated delta rule S <- diag(exp g_t) S + beta_t k_t (v_t -
    (diag(exp g_t) S)^T k_t)^T is evaluated in its chunked WY form (chunk 64: a cumulative log-decay per channel, an
    intra-chunk triangular solve done row by row, inter-chunk state carries). The output goes through a per-head
    RMSNorm gated by sigmoid of a low-rank g_a / g_b projection, then o_proj. Padded tokens are zeroed before the mixer.
  - MLA layers carry NO positional encoding at all (NoPE; the KDA layers supply position): queries from a full
    projection, keys / values from a compressed latent (kv_a_proj with a shared single-head "rope" slice that is
    never rotated, RMSNorm, kv_b_proj expanding to per-head k_nope and v), causal softmax attention under the padding
    mask.
  - Feed-forward: the first layer a dense SwiGLU, the rest MoE: sigmoid router (fp32) with a score-correction bias
    for the top-k choice, the chosen sigmoid scores renormalised and scaled by routed_scaling_factor 2.446, SwiGLU
    experts stored as 3-D tensors, plus an always-on shared SwiGLU expert.

Shrunk (from moonshotai/Kimi-Linear-48B-A3B-Instruct): hidden 2304 -> 64, 27 layers -> 4 (the checkpoint's period of
3 KDA + 1 MLA kept), KDA heads 32 of 128 -> 4 of 16, MLA heads 32 -> 4 with kv_lora_rank 512 -> 32, qk_nope 128 ->
16, qk_rope 64 -> 8, v 128 -> 16, 256 experts of 1024 (top-8) -> 8 of 32 (top-2), dense intermediate 9216 -> 128,
vocab 163840 -> 1000 (pad 163839 -> 999, bos / eos -> 997 / 998). Kept: 1 shared expert, first layer dense, short
conv 4, routed scaling 2.446, rms eps 1e-5, untied LM head.
Inputs: input_ids (2, 80) (two KDA chunks of 64, the second partial) with an attention_mask whose second sample is
right-padded by 6 tokens. Output: LM logits (2, 80, 1000).
"""
import torch
from torch import nn
from transformers import KimiLinearConfig, KimiLinearForCausalLM

batch_size = 2
seq_len = 80
vocab_size = 1000
pad_token_id = 999  # published 163839


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = KimiLinearForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, 990, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -6:] = pad_token_id
    attention_mask[1, -6:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # moonshotai/Kimi-Linear-48B-A3B-Instruct config.json, shrunk where commented. Kept: silu, rms_norm_eps 1e-5,
    # q_lora_rank None (full q projection), n_shared_experts 1, n_group / topk_group 1, norm_topk_prob,
    # routed_scaling_factor 2.446, linear_conv_kernel_dim 4, first_k_dense_replace 1, no attention bias.
    return [KimiLinearConfig(
        vocab_size=vocab_size,  # published 163840
        hidden_size=64,  # published 2304
        intermediate_size=128,  # published 9216
        moe_intermediate_size=32,  # published 1024
        num_hidden_layers=4,  # published 27
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        kv_lora_rank=32,  # published 512
        qk_nope_head_dim=16,  # published 128
        qk_rope_head_dim=8,  # published 64
        v_head_dim=16,  # published 128
        num_local_experts=8,  # published 256
        num_experts_per_tok=2,  # published 8
        linear_num_heads=4,  # published 32
        linear_head_dim=16,  # published 128
        layer_types=["linear_attention"] * 3 + ["full_attention"],  # published: kda_layers / full_attn_layers 4, 8, ...
        mlp_layer_types=["dense"] + ["sparse"] * 3,
        pad_token_id=pad_token_id,  # published 163839
        bos_token_id=997,  # published 163584
        eos_token_id=998,  # published 163586
    )]
