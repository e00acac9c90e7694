"""SpeechT5 speech-to-text (ASR) encoder-decoder (Ao et al. 2022, "SpeechT5: Unified-Modal Encoder-Decoder
Pre-Training for Spoken Language Processing"), after `microsoft/speecht5_asr`, shrunk.

SpeechT5ForSpeechToText. The speech encoder pre-net is wav2vec 2.0's: a 7-layer conv feature encoder over the raw
waveform (kernels 10,3,3,3,3,2,2, strides 5,2,2,2,2,2,2, no bias, GroupNorm on the first layer, GELU; 16000 samples
-> 49 frames), LayerNorm + linear feature projection, then a grouped convolutional position embedding (kernel 128,
16 groups) AND a sinusoidal absolute position embedding (offset by the pad id) added to the frames. The shared
encoder is post-LN with a LayerNorm on its input and a learned relative position bias: each layer's attention adds
q_i . E[clip(i - j, -160, 159)] (a head_dim-wide embedding of the clipped frame distance, shared by the heads) to
the scores.
The text decoder pre-net embeds the characters (no embedding scaling) and adds sinusoidal positions; the decoder is
post-LN with causal self-attention and cross-attention to the speech frames; the text post-net is an LM head tied to
the input embedding.
Shrunk: hidden 768 -> 128, 12 encoder layers -> 2, 6 decoder layers -> 2, 12 heads -> 4 (head_dim 64 -> 32),
ffn 3072 -> 512 (encoder and decoder), conv feature widths 512 -> 64. The 81-symbol character vocab is kept.
Inputs: 1 s of raw 16 kHz audio (2, 16000) and an attention_mask whose second sample is zero-padded over its last
4000 samples (the feature extractor pads with zeros and returns the mask); decoder_input_ids (2, 16) starting with
decoder_start_token_id 2 (teacher forcing, the causal mask is built inside).
Output: LM logits (2, 16, 81).
"""
import torch
from torch import nn
from transformers import SpeechT5Config, SpeechT5ForSpeechToText

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz
target_len = 16
vocab_size = 81
decoder_start_token_id = 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SpeechT5ForSpeechToText(config)

    def forward(self, input_values, attention_mask, decoder_input_ids):
        return self.model(
            input_values=input_values, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids
        ).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples)
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -4000:] = 0
    input_values[1, -4000:] = 0.0  # the feature extractor pads with zeros
    decoder_input_ids = torch.randint(4, vocab_size, (batch_size, target_len))
    decoder_input_ids[:, 0] = decoder_start_token_id
    return [input_values, attention_mask, decoder_input_ids]


def get_init_inputs():
    # microsoft/speecht5_asr config.json (= SpeechT5Config's defaults for every field not set here). Kept: vocab 81,
    # gelu, layer_norm_eps 1e-5, conv kernels (10,3,3,3,3,2,2) / strides (5,2,2,2,2,2,2), no conv bias,
    # feat_extract_norm "group", conv pos emb 128 / 16 groups, max_speech_positions 4000, max_text_positions 450,
    # encoder_max_relative_position 160, scale_embedding False, tied LM head, pad 1 / bos 0 / eos 2 /
    # decoder_start 2, SpecAugment settings (inactive in eval).
    return [SpeechT5Config(
        hidden_size=128,  # published 768
        encoder_layers=2,  # published 12
        encoder_attention_heads=4,  # published 12
        encoder_ffn_dim=512,  # published 3072
        decoder_layers=2,  # published 6
        decoder_attention_heads=4,  # published 12
        decoder_ffn_dim=512,  # published 3072
        conv_dim=(64, 64, 64, 64, 64, 64, 64),  # published 512 each
    )]
