"""Arcee AFM decoder LM (Llama-style GQA decoder whose MLP is not gated: up_proj -> ReLU^2 (relu2) -> down_proj,
no gate_proj), after `arcee-ai/AFM-4.5B`, shrunk. ArceeForCausalLM; output: LM logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import ArceeConfig, ArceeForCausalLM

batch_size = 2
seq_len = 16
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ArceeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    return [ArceeConfig(
        vocab_size=vocab_size,  # published 128004
        hidden_size=64,  # published 2560
        intermediate_size=256,  # published 18432
        num_hidden_layers=2,  # published 36
        num_attention_heads=4,  # published 20
        num_key_value_heads=2,  # published 4
        hidden_act="relu2",
        pad_token_id=None,
        bos_token_id=0,  # published 128000
        eos_token_id=1,  # published 128001
    )]
