"""Ling 3 hybrid MoE decoder LM (`inclusionAI/Ling-3.0-Flash`, BailingHybridForCausalLM), shrunk: a decoder that
interleaves linear-attention layers with multi-head latent attention (MLA) layers in fixed groups (every
layer_group_size-th layer is MLA, the others are KDA), over a DeepSeek-V3-style group-limited MoE. KDA layers (Kimi
Delta Attention): separate q / k / v projections, one causal depthwise short conv (kernel 4, SiLU) over the
concatenated q|k|v channels, then a gated delta rule with a PER-CHANNEL forget gate: a Mamba-style gate (A_log,
dt_bias, an f_proj of the token) in its bounded "safe" form log g = lower_bound * sigmoid(exp(A_log) * (f + dt_bias))
with lower_bound -5, a per-head write strength beta = sigmoid(b_proj x), L2-normalised q / k, evaluated chunk-wise
(transformers' PyTorch reference of chunk_kda); the output passes a gated RMSNorm per head (RMSNorm(o) *
sigmoid(g_proj x)) before o_proj. MLA layers: DeepSeek-V3 MLA without a query LoRA (one q_proj), a compressed KV
latent (kv_a_proj -> RMSNorm -> kv_b_proj) plus a shared decoupled RoPE key with interleaved RoPE (theta 6e6), and a
Ling-3-specific HEAD-WISE output gate: each head's attention output is multiplied by sigmoid(g_proj x)[head] before
o_proj. MLP: the first first_k_dense_replace layers are dense SwiGLU, the rest MoE: sigmoid router scores plus a
correction bias choose the top-k experts inside the top-k_group of n_group expert groups (group score = sum of the
best two), weights renormalised and scaled by routed_scaling_factor 2.5, SwiGLU experts plus one shared expert.
Pre-RMSNorm residual blocks, final RMSNorm, untied LM head (the MTP layer of the checkpoint is not part of the
causal forward).

Shrunk (from the BailingHybridConfig defaults): hidden 2560 -> 64, 42 layers -> 6 with layer_group_size 6 -> 3 (so
layers 3 and 6 are MLA, 1-2 and 4-5 KDA; published 1 MLA per 6), 32 heads of 128 -> 4 of 16 (KDA and MLA),
MLA qk_nope / qk_rope / v head dims 128 / 64 / 128 -> 16 / 8 / 16 and kv_lora_rank 512 -> 32, dense intermediate
6144 -> 128, 512 experts of 768 (top-8 in 4 of 8 groups) -> 32 of 32 (top-8 in 4 of 8 groups), vocab 157184 -> 1000
(pad / eos ids -> 0).
Kept: first_k_dense_replace 2, one shared expert, routed_scaling_factor 2.5, the safe-gate bound -5, short conv 4,
rope theta 6e6, rms eps 1e-6.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 6 (padding is zeroed before the
KDA short conv and masked in MLA). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import BailingHybridConfig, BailingHybridForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BailingHybridForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -6:] = 0
    input_ids[1, -6:] = 0  # pad id
    return [input_ids, attention_mask]


def get_init_inputs():
    # inclusionAI/Ling-3.0-Flash (the BailingHybridConfig defaults), shrunk where commented.
    return [BailingHybridConfig(
        vocab_size=vocab_size,  # published 157184
        hidden_size=64,  # published 2560
        intermediate_size=128,  # published 6144
        moe_intermediate_size=32,  # published 768
        num_hidden_layers=6,  # published 42
        layer_group_size=3,  # published 6
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        head_dim=16,  # published 128 (KDA head dim)
        qk_nope_head_dim=16,  # published 128
        qk_rope_head_dim=8,  # published 64
        v_head_dim=16,  # published 128
        kv_lora_rank=32,  # published 512
        q_lora_rank=None,
        num_local_experts=32,  # published 512
        num_experts_per_tok=8,
        n_group=8,
        topk_group=4,
        n_shared_experts=1,
        first_k_dense_replace=2,
        routed_scaling_factor=2.5,
        pad_token_id=0,  # published 156892 (outside the shrunk vocab)
        eos_token_id=0,  # published 156895
    )]
