"""diffusers `AutoencoderOobleck`: the "Oobleck" waveform VAE of Stable Audio Open (Evans et al. 2024, "Stable
Audio Open", Stability AI; a DAC-style fully convolutional audio autoencoder), after
`stabilityai/stable-audio-open-1.0` `vae/config.json`, shrunk. Encode -> decode of a stereo waveform with the
posterior mode (the mean), no sampling.

1-D, fully convolutional, every conv weight-normalised (torch.nn.utils.weight_norm: the weight is recomputed as
g * v / ||v|| before every call) and every nonlinearity a Snake activation with per-channel learned (log-scale)
alpha, beta:  snake(x) = x + 1 / (beta + 1e-9) * sin(alpha * x)^2.
  - residual unit (dilation d): x + Conv1x1(Snake(Conv7_dilated_d(Snake(x))));
  - encoder: Conv7 (audio channels -> C); 5 blocks, each 3 residual units (dilations 1, 3, 9), Snake, then a
    strided Conv (kernel 2s, stride s, padding ceil(s / 2)) that downsamples by s = 2, 4, 4, 8, 8 (2048x in
    all) and widens the channels by the multiples 1, 2, 4, 8, 16; Snake; Conv3 to 2 x latent channels;
  - posterior: mean and scale halves, std = softplus(scale) + 1e-4; here z = mean (the mode);
  - decoder: Conv7 (latent -> 16 C); 5 blocks, each Snake, ConvTranspose1d (kernel 2s, stride s) upsampling by
    8, 8, 4, 4, 2 and narrowing the channels back, then 3 residual units (dilations 1, 3, 9); Snake; Conv7 (no
    bias) to the audio channels (no output tanh).

Published: encoder_hidden_size 128, decoder_channels 128 (widest level 2048 channels), 64 latent channels,
156M parameters. Shrunk: encoder_hidden_size 128 -> 64, decoder_channels 128 -> 64 (widest level 1024), latent
channels (decoder_input_channels) 64 -> 32 (the encoder's output, 2 x latent, must equal encoder_hidden_size):
39M parameters; audio 2^21 samples (47.5 s at 44.1 kHz, the model's training length) -> 32768 samples (0.74 s,
16 latent frames). Kept: stereo, 44.1 kHz, the 2 / 4 / 4 / 8 / 8 strides (hop 2048), channel multiples
1 / 2 / 4 / 8 / 16, dilations 1 / 3 / 9, Snake + weight norm everywhere; no slicing / tiling (both off by
default).
Input: a stereo waveform in [-1, 1] (batch, 2, 32768). Output: the reconstructed waveform (batch, 2, 32768).
"""
import torch
from diffusers import AutoencoderOobleck
from torch import nn

batch_size = 2
audio_channels = 2  # stereo, as published
sampling_rate = 44100
num_samples = 32768  # 16 latent frames x hop 2048; published clips are 2^21 samples (47.5 s)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderOobleck(**config)

    def forward(self, audio):
        z = self.model.encode(audio).latent_dist.mode()  # the posterior mean, no sampling
        return self.model.decode(z).sample


def get_inputs():
    # a short stereo clip: quiet noise-like audio, well inside [-1, 1]
    return [(0.1 * torch.randn(batch_size, audio_channels, num_samples)).clamp(-1.0, 1.0)]


def get_init_inputs():
    # stabilityai/stable-audio-open-1.0 vae/config.json, shrunk where commented.
    return [dict(
        encoder_hidden_size=64,  # published 128
        downsampling_ratios=[2, 4, 4, 8, 8],
        channel_multiples=[1, 2, 4, 8, 16],
        decoder_channels=64,  # published 128
        decoder_input_channels=32,  # latent channels; published 64
        audio_channels=audio_channels,
        sampling_rate=sampling_rate,
    )]
