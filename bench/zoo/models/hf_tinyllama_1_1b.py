"""LLaMA-style decoder: the published config of `TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T`
(same architecture as TinyLlama-1.1B-Chat-v1.0): 22 layers, GQA 32 query / 4 key-value heads, SwiGLU, RMSNorm,
RoPE. Sequence length 128 (the context is 2048: shortened for the CPU sweep). Output: LM logits (batch, 128, 32000).
"""
import torch
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM

batch_size = 1
seq_len = 128  # TinyLlama's training context is 2048: shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LlamaForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 32000, (batch_size, seq_len))]


def get_init_inputs():
    # TinyLlama config.json (fields that differ from LlamaConfig's defaults). Same as the defaults:
    # vocab 32000, max_position_embeddings 2048, silu, rope_theta 10000, bos 1 / eos 2, untied LM head.
    return [LlamaConfig(
        hidden_size=2048,
        intermediate_size=5632,
        num_hidden_layers=22,
        num_attention_heads=32,
        num_key_value_heads=4,
        rms_norm_eps=1e-5,
    )]
