"""CTRL conditional language model (GPT-style pre-LN decoder with fixed sinusoidal positions, embeddings scaled by
sqrt(d_model), ReLU FFNs, a control code as the first token, LM head tied to the input embeddings plus a bias),
after `Salesforce/ctrl`, shrunk. CTRLLMHeadModel; output: logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import CTRLConfig, CTRLLMHeadModel

batch_size = 2
seq_len = 16
vocab_size = 1000
control_code = 7  # stand-in for a control code id such as "Opinion" or "Wikipedia"


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CTRLLMHeadModel(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def get_inputs():
    input_ids = torch.randint(10, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = control_code
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = 0  # right padding of the shorter prompt
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Kept: sinusoidal positions, layer_norm_epsilon 1e-6, ReLU FFN, tied word embeddings with LM-head bias.
    return [CTRLConfig(
        vocab_size=vocab_size,  # published 246534
        n_positions=256,
        n_embd=128,  # published 1280
        dff=512,  # published 8192
        n_layer=2,  # published 48
        n_head=4,  # published 16
        layer_norm_epsilon=1e-6,
        tie_word_embeddings=True,
    )]
