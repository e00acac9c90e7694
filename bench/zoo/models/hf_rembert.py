"""RemBERT: multilingual BERT with decoupled embeddings: small input embeddings (projected up to the hidden
size) and a larger untied output embedding in the MLM head, after `google/rembert`, shrunk.

Shrunk: hidden 1152 -> 128, 32 layers -> 2, 18 heads -> 4 (head_dim 64 -> 32), intermediate 4608 -> 512,
input_embedding_size 256 -> 32, output_embedding_size 1664 -> 192, vocab 250300 -> 1000.
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: MLM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import RemBertConfig, RemBertForMaskedLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = RemBertForMaskedLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # google/rembert config.json. Kept: decoupled input/output embedding sizes, untied output embeddings,
    # gelu, zero dropout, layer_norm_eps 1e-12, type_vocab_size 2, pad 0 / bos 312 / eos 313.
    return [RemBertConfig(
        vocab_size=vocab_size,  # published 250300
        hidden_size=128,  # published 1152
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 18
        intermediate_size=512,  # published 4608
        input_embedding_size=32,  # published 256
        output_embedding_size=192,  # published 1664
    )]
