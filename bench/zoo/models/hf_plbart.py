"""PLBART: BART-style denoising encoder-decoder for code and text (learned positions with offset 2,
embedding LayerNorm, scaled embeddings, GELU), after `uclanlp/plbart-base`, shrunk.

Shrunk: d_model 768 -> 128, 6 + 6 layers -> 2 + 2, 12 heads -> 4, ffn 3072 -> 256, vocab 50005 -> 1000,
max_position_embeddings 1024 -> 128.
Inputs: input_ids (2, 32), an attention_mask whose second sample is right-padded (5 positions),
decoder_input_ids (2, 16).
Output: the decoder's last_hidden_state (2, 16, 128).
"""
import torch
from torch import nn
from transformers import PLBartConfig, PLBartModel

batch_size = 2
seq_len = 32
decoder_seq_len = 16
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PLBartModel(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            decoder_input_ids=decoder_input_ids,
        ).last_hidden_state


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    decoder_input_ids = torch.randint(0, vocab_size, (batch_size, decoder_seq_len))
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # uclanlp/plbart-base config.json. Kept: gelu, scale_embedding, learned positions, pad 1 / bos 0 / eos 2.
    return [PLBartConfig(
        vocab_size=vocab_size,  # published 50005
        d_model=128,  # published 768
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=4,  # published 12
        decoder_attention_heads=4,  # published 12
        encoder_ffn_dim=256,  # published 3072
        decoder_ffn_dim=256,  # published 3072
        max_position_embeddings=128,  # published 1024
    )]
