"""Blenderbot encoder-decoder chatbot (BART-like but pre-LayerNorm with final encoder / decoder layer norms,
learned positions, scaled embeddings), after `facebook/blenderbot-400M-distill`, shrunk.
BlenderbotForConditionalGeneration; output: logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import BlenderbotConfig, BlenderbotForConditionalGeneration

batch_size = 2
src_len = 16
tgt_len = 16
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BlenderbotForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids
        ).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, src_len))
    attention_mask = torch.ones(batch_size, src_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    decoder_input_ids = torch.randint(3, vocab_size, (batch_size, tgt_len))
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # Kept: gelu, scale_embedding True, pre-norm.
    return [BlenderbotConfig(
        vocab_size=vocab_size,  # published 8008
        d_model=64,  # published 1280
        encoder_layers=2,  # published 2
        decoder_layers=2,  # published 12
        encoder_attention_heads=4,  # published 32
        decoder_attention_heads=4,  # published 32
        encoder_ffn_dim=256,  # published 5120
        decoder_ffn_dim=256,  # published 5120
        max_position_embeddings=64,  # published 128
        scale_embedding=True,
        pad_token_id=pad_token_id,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=1,
    )]
