"""MiniCPM3 (multi-head latent attention like DeepSeek-V2: low-rank q (q_a -> RMSNorm -> q_b), keys/values
decompressed from a shared latent kv_a (+ a shared decoupled RoPE key), cos/sin RoPE on the 32-dim rotary part;
plus muP-style scalings: embeddings x scale_emb, residual branches x scale_depth/sqrt(layers), hidden states
divided by hidden/dim_model_base before the tied LM head), after `openbmb/MiniCPM3-4B`, shrunk.

Shrunk: hidden 2560 -> 256, intermediate 6400 -> 640, 62 layers -> 2, 40 heads -> 4 (v_head_dim 64 kept),
q_lora_rank 768 -> 96, kv_lora_rank 256 -> 64, qk_nope_head_dim 64 and qk_rope_head_dim 32 kept,
dim_model_base 256 -> 32 (logit scaling hidden/dim_model_base 10 -> 8), vocab 73448 -> 1000;
published longrope rope_scaling (per-frequency short/long factors) -> plain RoPE (theta 10000).
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import MiniCPM3Config, MiniCPM3ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MiniCPM3ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # openbmb/MiniCPM3-4B config.json. Kept: MLA with q LoRA, qk_nope/qk_rope head dims 64/32, scale_emb 12,
    # scale_depth 1.4, rms_norm_eps 1e-5, initializer_range 0.1, silu SwiGLU, tied LM head.
    return [MiniCPM3Config(
        vocab_size=vocab_size,  # published 73448
        hidden_size=256,  # published 2560
        intermediate_size=640,  # published 6400
        num_hidden_layers=2,  # published 62
        num_attention_heads=4,  # published 40
        num_key_value_heads=4,  # published 40
        q_lora_rank=96,  # published 768
        kv_lora_rank=64,  # published 256
        qk_nope_head_dim=64,  # published 64 (kept)
        qk_rope_head_dim=32,  # published 32 (kept)
        max_position_embeddings=32768,  # published 32768 (kept)
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},  # published longrope, theta 10000
        scale_emb=12,  # published 12 (kept)
        scale_depth=1.4,  # published 1.4 (kept)
        dim_model_base=32,  # published 256 (hidden/dim_model_base 10 -> 8)
        initializer_range=0.1,  # published 0.1 (kept)
        rms_norm_eps=1e-5,  # published 1e-5 (kept)
        tie_word_embeddings=True,  # published true (kept)
    )]
