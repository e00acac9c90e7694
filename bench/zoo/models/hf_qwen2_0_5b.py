"""Qwen2-0.5B: the published config of `Qwen/Qwen2-0.5B`: 24 layers, GQA 14 query / 2 key-value heads, QKV bias,
tied embeddings, rope_theta 1e6. Sequence length 128 (shortened for the CPU sweep). Output: LM logits (batch, 128, 151936).
"""
import torch
from torch import nn
from transformers import Qwen2Config, Qwen2ForCausalLM

batch_size = 1
seq_len = 128  # shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Qwen2ForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 151936, (batch_size, seq_len))]


def get_init_inputs():
    # Qwen/Qwen2-0.5B config.json (fields that differ from Qwen2Config's defaults; vocab 151936, silu,
    # rms_norm_eps 1e-6, use_sliding_window False are defaults).
    return [Qwen2Config(
        hidden_size=896,
        intermediate_size=4864,
        num_hidden_layers=24,
        num_attention_heads=14,
        num_key_value_heads=2,
        max_position_embeddings=131072,
        rope_theta=1000000.0,
        sliding_window=131072,
        max_window_layers=24,
        tie_word_embeddings=True,
        bos_token_id=151643,
        eos_token_id=151643,
    )]
