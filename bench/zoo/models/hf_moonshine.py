"""Moonshine speech recognizer (Jeffries et al. 2024, "Moonshine: Speech Recognition for Live Transcription and Voice
Commands"), after `UsefulSensors/moonshine-tiny`, shrunk.

MoonshineForConditionalGeneration. No spectrogram: a 3-layer conv front end over the raw 16 kHz waveform,
conv1 (kernel 127, stride 64, no bias) -> tanh -> GroupNorm(1 group) -> conv2 (kernel 7, stride 3) -> GELU -> conv3
(kernel 3, stride 2) -> GELU, i.e. one frame per 384 samples (16000 samples -> 40 frames); the mask is subsampled to
the frames by taking every 384th sample. Encoder: pre-LN blocks (LayerNorms without bias), bidirectional MHA with
partial rotary position embeddings (RoPE on the first 90% of each head's dims: 32 of 36, theta 10000, the rest
unrotated), GELU MLP; final LayerNorm. Decoder: pre-LN blocks of causal self-attention with the same partial RoPE,
cross-attention to the encoder frames (no RoPE, padded frames masked), and a SwiGLU MLP (SiLU gate); final LayerNorm;
LM head tied to the token embedding.
Shrunk: 6 encoder layers -> 2, 6 decoder layers -> 2, vocab 32768 -> 1000. The published widths are kept: hidden
288, 8 heads (head_dim 36), intermediate 1152 (the decoder's gate + up projection 2 x 1152).
Inputs: 1 s of raw 16 kHz audio (2, 16000) with the feature extractor's attention_mask, the second sample
zero-padded over its last 4000 samples (Wav2Vec2FeatureExtractor, do_normalize False, return_attention_mask True);
decoder_input_ids (2, 16) starting with decoder_start_token_id 1 (teacher forcing).
Output: LM logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import MoonshineConfig, MoonshineForConditionalGeneration

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz
target_len = 16
vocab_size = 1000
decoder_start_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MoonshineForConditionalGeneration(config)

    def forward(self, input_values, attention_mask, decoder_input_ids):
        return self.model(
            input_values=input_values, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids
        ).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples) * 0.1  # raw waveform in [-1, 1], not normalized
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -4000:] = 0
    input_values[1, -4000:] = 0.0  # the feature extractor pads with zeros
    decoder_input_ids = torch.randint(3, vocab_size, (batch_size, target_len))
    decoder_input_ids[:, 0] = decoder_start_token_id
    return [input_values, attention_mask, decoder_input_ids]


def get_init_inputs():
    # UsefulSensors/moonshine-tiny config.json. Kept: hidden 288, intermediate 1152, 8 encoder / decoder heads
    # (MHA: kv heads = heads), gelu encoder MLP, silu (gated) decoder MLP, partial_rotary_factor 0.9, rope_theta
    # 1e4, max_position_embeddings 194, no attention bias, initializer_range 0.02, tied embeddings, bos 1 / eos 2 /
    # pad 2 / decoder_start 1.
    return [MoonshineConfig(
        vocab_size=vocab_size,  # published 32768
        encoder_num_hidden_layers=2,  # published 6
        decoder_num_hidden_layers=2,  # published 6
        max_position_embeddings=194,
        pad_token_id=2,
    )]
