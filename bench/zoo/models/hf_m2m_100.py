"""M2M-100: many-to-many translation encoder-decoder (pre-LN Transformer, sinusoidal positions, scaled
embeddings, shared source/target vocabulary), after `facebook/m2m100_418M`, shrunk.

Shrunk: d_model 1024 -> 128, 12 + 12 layers -> 2 + 2, 16 heads -> 4 (encoder and decoder),
ffn 4096 -> 256, vocab 128112 -> 1000.
Inputs: input_ids (2, 32), an attention_mask whose second sample is right-padded (5 positions),
decoder_input_ids (2, 16).
Output: the decoder's last_hidden_state (2, 16, 128).
"""
import torch
from torch import nn
from transformers import M2M100Config, M2M100Model

batch_size = 2
seq_len = 32
decoder_seq_len = 16
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = M2M100Model(config)

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
    # facebook/m2m100_418M config.json. Kept: relu activation, scale_embedding, sinusoidal positions
    # (max_position_embeddings 1024), pad 1 / bos 0 / eos 2, decoder_start_token_id 2, layerdrop 0.05.
    return [M2M100Config(
        vocab_size=vocab_size,  # published 128112
        d_model=128,  # published 1024
        encoder_layers=2,  # published 12
        decoder_layers=2,  # published 12
        encoder_attention_heads=4,  # published 16
        decoder_attention_heads=4,  # published 16
        encoder_ffn_dim=256,  # published 4096
        decoder_ffn_dim=256,  # published 4096
        max_position_embeddings=1024,  # published 1024
    )]
