"""Voxtral Realtime (`mistralai/Voxtral-Mini-4B-Realtime-2602`, VoxtralRealtimeForConditionalGeneration), shrunk: a
streaming speech-to-text model whose audio and text run in lock-step, one text position per 80 ms of audio, instead
of an encoder-decoder or an LLM with audio placeholder tokens. Audio tower: a Whisper-style log-mel front end made
causal (two left-padded Conv1d, kernel 3, the second stride 2, GELU), then a causal transformer with a sliding window
(RMSNorm, RoPE, SwiGLU MLP), so it can run chunk by chunk. Every 4 consecutive encoder frames are concatenated
(downsample_factor 4) and projected by a 2-layer GELU MLP to the text width, and these audio embeddings are ADDED
position-wise to the text token embeddings (8 mel frames per text token: 2 from the conv stride x 4 from the
stacking). Text model: a Mistral-style causal decoder with sliding-window GQA attention whose MLP input is modulated by
the streaming delay: a sinusoidal embedding of num_delay_tokens passes through a per-layer bottleneck MLP (hidden ->
32 -> hidden, GELU) and scales the post-attention RMSNorm output by (1 + that), an adaptive norm conditioned on how
far the transcript lags the audio. Tied LM head.

Shrunk: text hidden 3072 -> 64, 26 layers -> 2, 32 heads (8 kv) of 128 -> 4 (2 kv) of 16, intermediate 9216 -> 128,
sliding window 8192 -> 16, vocab 131072 -> 1000; audio hidden 1280 -> 64, 32 layers -> 2, 32 heads of 64 -> 4 of
16, intermediate 5120 -> 128, sliding window 750 -> 32 encoder frames.
Kept: 128 mel bins, the causal conv front end, downsample_factor 4, audio_length_per_tok 8, 6 delay tokens (the
default, passed explicitly), the delay-conditioned ada norm, sliding windows in both towers, rope_theta 1e6 in the text
model, tied embeddings, silu / gelu activations.
Inputs: input_ids (2, 32), input_features (2, 128, 256) log-mel frames (= 32 tokens x 8). Output: LM logits (2, 32,
1000).
"""
import torch
from torch import nn
from transformers import (
    VoxtralRealtimeConfig,
    VoxtralRealtimeEncoderConfig,
    VoxtralRealtimeForConditionalGeneration,
    VoxtralRealtimeTextConfig,
)

batch_size = 2
seq_len = 32
num_mel_bins = 128
audio_length_per_tok = 8
num_frames = seq_len * audio_length_per_tok  # 256 mel frames
vocab_size = 1000
num_delay_tokens = 6


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VoxtralRealtimeForConditionalGeneration(config)

    def forward(self, input_ids, input_features):
        return self.model(input_ids=input_ids, input_features=input_features, num_delay_tokens=num_delay_tokens,
                          use_cache=False).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    input_features = torch.randn(batch_size, num_mel_bins, num_frames)
    return [input_ids, input_features]


def get_init_inputs():
    # mistralai/Voxtral-Mini-4B-Realtime-2602 (the VoxtralRealtimeConfig defaults), shrunk where commented.
    text_config = VoxtralRealtimeTextConfig(
        vocab_size=vocab_size,  # published 131072
        hidden_size=64,  # published 3072
        intermediate_size=128,  # published 9216
        num_hidden_layers=2,  # published 26
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        head_dim=16,  # published 128
        sliding_window=16,  # published 8192
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 1e6},
        tie_word_embeddings=True,
    )
    audio_config = VoxtralRealtimeEncoderConfig(
        hidden_size=64,  # published 1280
        intermediate_size=128,  # published 5120
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        head_dim=16,  # published 64
        num_mel_bins=num_mel_bins,
        sliding_window=32,  # published 750
    )
    return [VoxtralRealtimeConfig(
        text_config=text_config,
        audio_config=audio_config,
        audio_length_per_tok=audio_length_per_tok,
        downsample_factor=4,
        default_num_delay_tokens=num_delay_tokens,
        tie_word_embeddings=True,
    )]
