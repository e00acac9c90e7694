"""MusicGen decoder (Copet et al. 2023, "Simple and Controllable Music Generation"): the audio-token language model of
`facebook/musicgen-small`, shrunk.

MusicgenForCausalLM (the decoder alone, without the T5 text encoder and the EnCodec audio codec). It models the 4
parallel codebook streams of 32 kHz EnCodec (2048 codes each, 50 Hz) in one causal transformer with the "delay"
interleaving pattern: codebook k is shifted right by k steps, so one decoder step predicts codebook 0 of frame t,
codebook 1 of frame t - 1, ..., and the positions before each stream's start hold the special token 2048 (BOS = pad).
The input embedding is the sum of 4 per-codebook embeddings (2049 rows: the 2048 codes + the special token), plus
sinusoidal positions (not scaled); pre-LayerNorm decoder layers with causal self-attention, cross-attention to the
text conditioning, GELU FFN; final LayerNorm; 4 separate LM heads (one per codebook, no bias, untied).
Shrunk: hidden 1024 -> 64, 24 layers -> 2, 16 heads -> 4 (head_dim 64 -> 16), ffn 4096 -> 256. Kept: 4 codebooks,
2048 codes (vocab), 2048 positions, mono.
Inputs, as MusicgenForConditionalGeneration hands them to the decoder in a teacher-forced step:
- input_ids (batch * 4, 24) = (batch, 4 codebooks, 24 steps) flattened: random codes under the delay pattern, whose
  first k + 1 steps of codebook k are the special token 2048;
- encoder_hidden_states (2, 12, 64): the T5 text-encoder states after MusicGen's enc_to_dec_proj (768 -> the
  decoder width; published t5-base 768 -> 1024), zeroed at padded text tokens as MusicGen does;
- encoder_attention_mask (2, 12): the second prompt 4 tokens shorter (right-padded).
Output: logits (batch * 4, 24, 2048), one row of logits per codebook stream.
"""
import torch
from torch import nn
from transformers import MusicgenDecoderConfig, MusicgenForCausalLM

batch_size = 2
num_codebooks = 4
seq_len = 24
text_len = 12
hidden_size = 64  # published 1024
vocab_size = 2048
special_token_id = 2048  # BOS = pad: the delay pattern's filler


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MusicgenForCausalLM(config)

    def forward(self, input_ids, encoder_hidden_states, encoder_attention_mask):
        return self.model(input_ids=input_ids, encoder_hidden_states=encoder_hidden_states,
                          encoder_attention_mask=encoder_attention_mask).logits


def get_inputs():
    codes = torch.randint(0, vocab_size, (batch_size, num_codebooks, seq_len))
    for k in range(num_codebooks):
        codes[:, k, : k + 1] = special_token_id  # delay pattern: codebook k starts k steps after codebook 0
    input_ids = codes.reshape(batch_size * num_codebooks, seq_len)
    encoder_attention_mask = torch.ones(batch_size, text_len, dtype=torch.long)
    encoder_attention_mask[1, -4:] = 0
    encoder_hidden_states = torch.randn(batch_size, text_len, hidden_size)
    encoder_hidden_states = encoder_hidden_states * encoder_attention_mask[..., None]
    return [input_ids, encoder_hidden_states, encoder_attention_mask]


def get_init_inputs():
    # facebook/musicgen-small config.json, "decoder". Kept (all MusicgenDecoderConfig defaults): vocab 2048,
    # max_position_embeddings 2048, 4 codebooks, mono, gelu, dropout 0.1, attention / activation dropout 0,
    # layerdrop 0, scale_embedding False, initializer_factor 0.02, untied heads, pad = bos = 2048.
    return [MusicgenDecoderConfig(
        num_hidden_layers=2,  # published 24
        ffn_dim=256,  # published 4096
        num_attention_heads=4,  # published 16
        hidden_size=hidden_size,  # published 1024
    )]
