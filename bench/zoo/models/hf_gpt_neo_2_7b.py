"""GPT-Neo 2.7B: the published config of `EleutherAI/gpt-neo-2.7B` (full size: fp32 weights ~10.6 GB).

Alternating global / local (window 256) attention layers. Sequence length 128 (the context is 2048: shortened for the CPU sweep).
Output: LM logits (batch, 128, 50257): 128 tokens (context 2048, shortened for the CPU sweep).
"""
import torch
from torch import nn
from transformers import GPTNeoConfig, GPTNeoForCausalLM

batch_size = 1
seq_len = 128  # GPT-Neo's training context is 2048: shortened for the CPU sweep (local attention window 256)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GPTNeoForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 50257, (batch_size, seq_len))]


def get_init_inputs():
    # EleutherAI/gpt-neo-2.7B config.json (fields that differ from GPTNeoConfig's defaults). Same as the
    # defaults: vocab 50257, max_position_embeddings 2048, window_size 256, gelu_new, layer_norm_epsilon 1e-5,
    # intermediate_size None (= 4 * hidden), dropouts 0, tied LM head.
    return [GPTNeoConfig(
        hidden_size=2560,
        num_layers=32,
        num_heads=20,
        attention_types=[[["global", "local"], 16]],
    )]
