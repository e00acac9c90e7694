"""LED, the Longformer-Encoder-Decoder (Beltagy et al. 2020, "Longformer: The Long-Document Transformer"): a
BART-style encoder-decoder whose encoder self-attention is Longformer attention. Every token attends within a
sliding local window of attention_window / 2 tokens on each side (computed chunk-wise as banded matrix products
over overlapping chunks, the input padded up to a multiple of the window), and the tokens marked in
global_attention_mask (here the first, <s>, token) attend to, and are attended by, all tokens through separate
global query/key/value projections. Learned absolute positions (16384 encoder positions in the published model,
copied from BART's 1024); post-LN layers with embedding LayerNorm; the decoder is a standard BART decoder (causal
self-attention, cross-attention to the encoder output, learned positions). After `allenai/led-base-16384`,
shrunk.

LEDModel (encoder + decoder, no LM head).
Shrunk: d_model 768 -> 128, 6 encoder + 6 decoder layers -> 2 + 2, 12 heads -> 4, FFN 3072 -> 512, attention
window 1024 -> 16 per layer (8 tokens each side, so a 64-token input is really windowed), vocab 50265 -> 1000,
max_encoder_position_embeddings 16384 -> 1024; max_decoder_position_embeddings 1024 as published.
Inputs: input_ids (2, 64) as the BART tokenizer writes them (<s>=0 ... </s>=2, pad 1), attention_mask with the
second sample right-padded, global_attention_mask set on the first token, decoder_input_ids (2, 16) starting
with the decoder start token </s> (2).
Output: decoder last_hidden_state (2, 16, 128).
"""
import torch
from torch import nn
from transformers import LEDConfig, LEDModel

batch_size = 2
src_len = 64
tgt_len = 16
vocab_size = 1000
bos_id, pad_id, eos_id = 0, 1, 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LEDModel(config)

    def forward(self, input_ids, attention_mask, global_attention_mask, decoder_input_ids):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            global_attention_mask=global_attention_mask,
            decoder_input_ids=decoder_input_ids,
        ).last_hidden_state


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, src_len))
    attention_mask = torch.ones(batch_size, src_len, dtype=torch.long)
    input_ids[:, 0] = bos_id
    input_ids[0, -1] = eos_id
    input_ids[1, -6] = eos_id
    input_ids[1, -5:] = pad_id
    attention_mask[1, -5:] = 0
    global_attention_mask = torch.zeros(batch_size, src_len, dtype=torch.long)
    global_attention_mask[:, 0] = 1  # <s> attends globally
    decoder_input_ids = torch.randint(4, vocab_size, (batch_size, tgt_len))
    decoder_input_ids[:, 0] = eos_id  # decoder_start_token_id
    return [input_ids, attention_mask, global_attention_mask, decoder_input_ids]


def get_init_inputs():
    # allenai/led-base-16384 config.json. Kept: gelu, init_std 0.02, dropout 0.1 and attention / activation
    # dropout 0.0 (inactive in eval), layerdrop 0, pad 1 / bos 0 / eos 2 / decoder_start 2, tied embeddings.
    return [LEDConfig(
        vocab_size=vocab_size,  # published 50265
        max_encoder_position_embeddings=1024,  # published 16384
        max_decoder_position_embeddings=1024,
        encoder_layers=2,  # published 6
        encoder_ffn_dim=512,  # published 3072
        encoder_attention_heads=4,  # published 12
        decoder_layers=2,  # published 6
        decoder_ffn_dim=512,  # published 3072
        decoder_attention_heads=4,  # published 12
        d_model=128,  # published 768
        attention_window=[16, 16],  # published [1024] * 6
        activation_function="gelu",
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        encoder_layerdrop=0.0,
        decoder_layerdrop=0.0,
        init_std=0.02,
        pad_token_id=pad_id,
        bos_token_id=bos_id,
        eos_token_id=eos_id,
        decoder_start_token_id=eos_id,
        is_encoder_decoder=True,
    )]
