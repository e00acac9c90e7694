"""Whisper-base encoder: WhisperEncoder built from the published config of `openai/whisper-base`.

Input: a 30 s log-mel spectrogram, 80 mel bins x 3000 frames (2 conv layers, stride 2 -> 1500 positions).
Output: last_hidden_state (batch, 1500, 512).
"""
import torch
from torch import nn
from transformers import WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperEncoder

batch_size = 1
num_mel_bins = 80
num_frames = 3000  # 30 s of audio at a 10 ms hop


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = WhisperEncoder(config)

    def forward(self, input_features):
        return self.model(input_features=input_features).last_hidden_state


def get_inputs():
    return [torch.randn(batch_size, num_mel_bins, num_frames)]


def get_init_inputs():
    # openai/whisper-base config.json (fields that differ from WhisperConfig's defaults, which are
    # whisper-tiny's; num_mel_bins 80, max_source_positions 1500, vocab 51865, gelu are defaults).
    # Generation-only fields (suppress_tokens, ...) are left out: the encoder does not read them.
    return [WhisperConfig(
        d_model=512,
        encoder_layers=6,
        encoder_attention_heads=8,
        encoder_ffn_dim=2048,
        decoder_layers=6,
        decoder_attention_heads=8,
        decoder_ffn_dim=2048,
        pad_token_id=50257,
        bos_token_id=50257,
        eos_token_id=50257,
        decoder_start_token_id=50258,
    )]
