"""diffusers `T5FilmDecoder`: the denoiser of Music Spectrogram Diffusion (Hawthorne et al., ISMIR 2022,
"Multi-instrument Music Synthesis with Spectrogram Diffusion", `google/music-spectrogram-diffusion`), which turns
MIDI-like note tokens into log-mel spectrogram segments. One forward = one DDPM denoising step of one 128-bin mel
segment, as SpectrogramDiffusionPipeline.decode calls it: the diffusion time in [0, 1) is scaled by
max_decoder_noise_time into a sinusoidal embedding, and a bias-free SiLU MLP maps it to a 4 x d_model conditioning
vector; the noisy mel frames are projected (no bias) and get learned (frozen) absolute position embeddings; every
T5-style decoder layer does RMSNorm -> FiLM (scale + 1, shift from the conditioning) -> unmasked bidirectional
self-attention (no 1/sqrt(d) scaling, as in T5, no position bias), RMSNorm -> cross-attention over the concatenation
of the two upstream encodings (the note-token encoder and the previous-segment context encoder) under the
concatenated key-padding mask, RMSNorm -> FiLM -> gated-GELU FFN; a final RMSNorm and a bias-free Linear give the
predicted clean spectrogram.

Only the decoder is a diffusers model class; the two T5 encoders (SpectrogramNotesEncoder / SpectrogramContEncoder of
the deprecated pipeline) no longer run against the installed transformers, so their outputs are inputs here, as text
encoder states are for the other dif_ denoisers.
Shrunk: d_model 768 -> 64, 12 layers -> 2, 12 heads -> 4, d_kv 64 -> 16, d_ff 2048 -> 128, targets_length 256 ->
64 frames, note encoding length 2048 -> 64, context length 256 -> 64.
Kept: input_dims 128 (mel bins), max_decoder_noise_time 2000 (the class default), T5 layer_norm_epsilon 1e-6,
gated-GELU, FiLM in both self-attention and FFN sub-layers.
Inputs: noisy mel tokens (2, 64, 128) (x_t of a [-1, 1]-scaled log-mel target); note encodings (2, 64, 64) with a
mask keeping 48 and 30 note tokens; context encodings (2, 64, 64) with a mask that is all False for the first
sample (the first segment of a piece has no context, as the pipeline does) and all True for the second; diffusion
times (2,) in [0, 1). Output: the predicted spectrogram (2, 64, 128).
"""
import torch
from diffusers import T5FilmDecoder
from torch import nn

batch_size = 2
targets_length = 64
input_dims = 128
notes_length = 64
d_model = 64
note_lens = [48, 30]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = T5FilmDecoder(**config)

    def forward(self, decoder_input_tokens, notes_encoded, notes_mask, context_encoded, context_mask, noise_time):
        # SpectrogramDiffusionPipeline.decode: encodings_and_masks = [(notes, mask), (context, mask)]
        encodings_and_masks = [(notes_encoded, notes_mask), (context_encoded, context_mask)]
        return self.model(encodings_and_masks, decoder_input_tokens, noise_time)


def get_inputs():
    clean = torch.rand(batch_size, targets_length, input_dims) * 2 - 1  # a mel segment scaled to [-1, 1]
    noise_time = torch.tensor([0.25, 0.75]).repeat(batch_size)[:batch_size]
    alpha_bar = torch.cos(noise_time * torch.pi / 2).view(-1, 1, 1) ** 2
    decoder_input_tokens = alpha_bar.sqrt() * clean + (1 - alpha_bar).sqrt() * torch.randn_like(clean)
    notes_encoded = torch.randn(batch_size, notes_length, d_model)
    notes_mask = torch.zeros(batch_size, notes_length, dtype=torch.bool)
    for b in range(batch_size):
        notes_mask[b, : note_lens[b % len(note_lens)]] = True
    context_encoded = torch.randn(batch_size, targets_length, d_model)
    context_mask = torch.zeros(batch_size, targets_length, dtype=torch.bool)
    context_mask[1::2] = True  # odd samples continue a piece; even samples start one (no context)
    return [decoder_input_tokens, notes_encoded, notes_mask, context_encoded, context_mask, noise_time]


def get_init_inputs():
    # google/music-spectrogram-diffusion decoder (the T5FilmDecoder defaults). Kept: input_dims 128,
    # max_decoder_noise_time 2000, gated-gelu FFN, FiLM conditioning.
    return [dict(
        input_dims=input_dims,
        targets_length=targets_length,  # published 256
        max_decoder_noise_time=2000.0,
        d_model=d_model,  # published 768
        num_layers=2,  # published 12
        num_heads=4,  # published 12
        d_kv=16,  # published 64
        d_ff=128,  # published 2048
        dropout_rate=0.1,
    )]
