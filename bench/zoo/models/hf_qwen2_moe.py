"""Qwen1.5-MoE / Qwen2-MoE decoder LM (Qwen Team 2024, "Qwen1.5-MoE: Matching 7B Model Performance with 1/3
Activated Parameters"), after `Qwen/Qwen1.5-MoE-A2.7B`, shrunk.

Qwen2MoeForCausalLM. Llama-style pre-RMSNorm blocks: full multi-head attention with biases on the q / k / v
projections (qkv_bias; none on o_proj) and RoPE (theta 1e6), no sliding window; then a sparse MoE block in every layer
(decoder_sparse_step 1, no mlp_only_layers): a softmax router over 60 experts picks the top 4 per token and
weights the SwiGLU experts (stored as stacked 3-D gate_up / down weights, looped over the experts that were hit) by
their *un-normalised* softmax probabilities (norm_topk_prob False), and a shared SwiGLU expert runs on every token,
scaled by a sigmoid gate (a hidden -> 1 linear) and added to the routed sum. Final RMSNorm, untied LM head.
Shrunk: hidden 2048 -> 256, 24 layers -> 2, 16 heads -> 8 (MHA kept: kv heads = heads), head_dim 128 -> 32,
moe_intermediate 1408 -> 176 and shared_expert_intermediate 5632 -> 704 (the published 0.6875x / 2.75x hidden kept;
intermediate_size, used only by dense layers, of which the published config has none, 5632 -> 704 alike),
vocab 151936 -> 1000. The 60 experts, top-4 and decoder_sparse_step 1 are kept.
Inputs: input_ids (2, 64) (no bos: the Qwen tokenizer adds none), attention_mask with the second sample right-padded
by 5 tokens. The published pad = bos = eos (<|endoftext|> = 151643) lies outside the shrunk vocab, so it is
remapped to 0. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Qwen2MoeConfig, Qwen2MoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0  # the tokenizer's pad, published 151643 (<|endoftext|>); config.json sets no pad_token_id
bos_token_id = 0  # published 151643
eos_token_id = 0  # published 151643


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Qwen2MoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Qwen/Qwen1.5-MoE-A2.7B config.json. Kept: silu, rms_norm_eps 1e-6, rope_theta 1e6, no rope scaling,
    # max_position_embeddings 8192, use_sliding_window False (sliding_window 32768, max_window_layers 21 unused),
    # qkv_bias on, 60 experts, top-4, norm_topk_prob False, decoder_sparse_step 1, no mlp_only_layers,
    # router_aux_loss_coef 0.001 (training only), attention_dropout 0, initializer_range 0.02, untied head.
    return [Qwen2MoeConfig(
        vocab_size=vocab_size,  # published 151936
        hidden_size=256,  # published 2048
        intermediate_size=704,  # published 5632 (dense MLP layers only; none here, as published)
        num_hidden_layers=2,  # published 24
        num_attention_heads=8,  # published 16
        num_key_value_heads=8,  # published 16
        hidden_act="silu",
        max_position_embeddings=8192,
        initializer_range=0.02,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        use_sliding_window=False,
        sliding_window=32768,
        max_window_layers=21,
        attention_dropout=0.0,
        decoder_sparse_step=1,
        moe_intermediate_size=176,  # published 1408
        shared_expert_intermediate_size=704,  # published 5632
        num_experts_per_tok=4,
        num_experts=60,
        norm_topk_prob=False,
        output_router_logits=False,
        router_aux_loss_coef=0.001,
        mlp_only_layers=[],
        qkv_bias=True,
        pad_token_id=None,  # as published (no padding_idx on the embedding); the tokenizer pads with 151643
        bos_token_id=bos_token_id,  # published 151643
        eos_token_id=eos_token_id,  # published 151643
    )]
