"""MarianMT (post-norm transformer encoder-decoder with sinusoidal position embeddings, scaled embeddings shared
by encoder, decoder and the LM head, swish FFN, final-logits bias), after `Helsinki-NLP/opus-mt-en-de`, shrunk.

MarianMTModel, one teacher-forced step as in training / scoring: the source goes through the encoder, and the
decoder reads the shifted target (decoder_input_ids starting with decoder_start_token_id = pad).
Shrunk: d_model 512 -> 128, 6 + 6 layers -> 2 + 2, 8 heads -> 4, ffn 2048 -> 512, vocab 58101 -> 1000
(pad / decoder start 58100 -> 999), max_position_embeddings 512 -> 64.
Inputs: input_ids (2, 24), attention_mask with the second source right-padded (pad id 999),
decoder_input_ids (2, 16).
Output: LM logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import MarianConfig, MarianMTModel

batch_size = 2
src_len = 24
tgt_len = 16
vocab_size = 1000
pad_token_id = vocab_size - 1  # Marian: pad = decoder start = last id


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MarianMTModel(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          decoder_input_ids=decoder_input_ids).logits


def get_inputs():
    input_ids = torch.randint(1, pad_token_id, (batch_size, src_len))
    input_ids[0, -1] = 0  # </s>
    input_ids[1, -6] = 0
    input_ids[1, -5:] = pad_token_id
    attention_mask = torch.ones(batch_size, src_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    decoder_input_ids = torch.randint(1, pad_token_id, (batch_size, tgt_len))
    decoder_input_ids[:, 0] = pad_token_id  # decoder_start_token_id
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # Helsinki-NLP/opus-mt-en-de config.json. Kept: activation swish, scale_embedding True, static sinusoidal
    # positions, post-LayerNorm, shared encoder/decoder/LM-head embeddings, dropout 0.1, eos 0,
    # pad = decoder_start = last id.
    return [MarianConfig(
        vocab_size=vocab_size,  # published 58101
        d_model=128,  # published 512
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=4,  # published 8
        decoder_attention_heads=4,  # published 8
        encoder_ffn_dim=512,  # published 2048
        decoder_ffn_dim=512,  # published 2048
        max_position_embeddings=64,  # published 512
        activation_function="swish",
        scale_embedding=True,
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        share_encoder_decoder_embeddings=True,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,  # published 58100
        decoder_start_token_id=pad_token_id,  # published 58100
        eos_token_id=0,
        forced_eos_token_id=0,
    )]
