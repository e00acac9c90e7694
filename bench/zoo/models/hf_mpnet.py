"""MPNet: BERT-like encoder pre-trained with masked + permuted language modeling, using a T5-style bucketed
relative position bias shared across layers (on top of absolute positions, offset by padding_idx), after
`microsoft/mpnet-base`, shrunk.

Shrunk: hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4, intermediate 3072 -> 256, vocab 30527 -> 1000.
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: (last_hidden_state (2, 64, 128), pooler_output (2, 128)).
"""
import torch
from torch import nn
from transformers import MPNetConfig, MPNetModel

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MPNetModel(config)

    def forward(self, input_ids, attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # microsoft/mpnet-base config.json. Kept: relative_attention_num_buckets 32, max_position_embeddings 514,
    # layer_norm_eps 1e-5, gelu, pad 1.
    return [MPNetConfig(
        vocab_size=vocab_size,  # published 30527
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        max_position_embeddings=514,  # published 514
        layer_norm_eps=1e-5,  # published 1e-5
    )]
