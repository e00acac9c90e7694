"""LayoutLM document encoder (BERT plus 2-D position embeddings: every token carries a [x0, y0, x1, y1] box on a
0-1000 page grid, embedded by x / y / height / width tables and summed into the token embeddings),
after `microsoft/layoutlm-base-uncased`, shrunk. LayoutLMModel; output: last_hidden_state (2, 16, 64).
"""
import torch
from torch import nn
from transformers import LayoutLMConfig, LayoutLMModel

batch_size = 2
seq_len = 16
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LayoutLMModel(config)

    def forward(self, input_ids, bbox, attention_mask):
        return self.model(input_ids=input_ids, bbox=bbox, attention_mask=attention_mask).last_hidden_state


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    x0 = torch.randint(0, 900, (batch_size, seq_len))
    y0 = torch.randint(0, 950, (batch_size, seq_len))
    bbox = torch.stack([x0, y0, x0 + torch.randint(1, 100, x0.shape), y0 + torch.randint(1, 50, y0.shape)], dim=-1)
    input_ids[1, -4:] = 0  # pad
    bbox[1, -4:] = 0
    attention_mask[1, -4:] = 0
    return [input_ids, bbox, attention_mask]


def get_init_inputs():
    # Kept: max_2d_position_embeddings 1024, gelu, layer_norm_eps 1e-12.
    return [LayoutLMConfig(
        vocab_size=vocab_size,  # published 30522
        hidden_size=64,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        max_position_embeddings=64,  # published 512
        max_2d_position_embeddings=1024,
    )]
