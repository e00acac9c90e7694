"""GPT-2 small (124M): the published config of `openai-community/gpt2` (= GPT2Config() defaults).

Sequence length 1024 (n_positions, the training context). Output: LM logits (batch, 1024, 50257).
"""
import torch
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel

batch_size = 1
seq_len = 128  # GPT-2's full context is 1024 (n_positions): shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GPT2LMHeadModel(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 50257, (batch_size, seq_len))]


def get_init_inputs():
    # openai-community/gpt2 config.json: n_embd 768, n_layer 12, n_head 12, n_positions 1024, vocab 50257,
    # gelu_new, layer_norm_epsilon 1e-5, tied LM head: all GPT2Config defaults.
    return [GPT2Config()]
