"""WavTokenizer single-codebook neural audio codec (encode + decode round trip: a SEANet encoder (weight-normed
Conv1d's with reflect padding, ELU residual blocks, strided downsampling by 4, 5, 5, 6 = hop 600, a 2-layer LSTM
with a skip), one vector-quantisation codebook (nearest code by Euclidean distance, a single token stream of 40
tokens per second at 24 kHz), then a Vocos decoder: embedding Conv1d, a "positional net" of GroupNorm / SiLU
residual conv blocks around one single-head self-attention over time, ConvNeXt blocks (depthwise conv k7, adaptive
LayerNorm whose scale / shift come from a bandwidth embedding, pointwise MLP, layer scale), and an iSTFT head: a
linear layer to n_fft + 2 = 2402 channels split into log-magnitude (exp, clamped at 100) and phase, torch.polar, an
inverse real FFT of 2400 points per frame, Hann window, overlap-add by F.fold with hop 600 and "same" padding,
divided by the overlap-added squared window), after `swiss-ai/wavtokenizer-large-unify-40token`, shrunk.

WavTokenizerModel; output (audio_values (2, 1, 12000), audio_codes (2, 1, 20), audio_codes_mask (2, 1, 20)).
The library initialises the codebook (a buffer, as the checkpoint stores it) to zeros, which would send every
frame to code 0; it is filled with N(0, 1) vectors in Model.__init__, as a stand-in for trained codes (with random encoder weights
the frames still come out nearly alike, so most pick the same code; the computation is the same).
Shrunk: encoder num_filters 32 -> 8 (channels 8 ... 128 instead of 32 ... 512), hidden_size = codebook_dim
512 -> 128, codebook 4096 -> 512 codes, decoder hidden 768 -> 128, ConvNeXt intermediate 2304 -> 384,
12 ConvNeXt blocks -> 2. Kept: upsampling_ratios (6, 5, 5, 4) (hop 600, n_fft 2400), kernel sizes 7 / 7 / 3,
compress 2, 2 LSTM layers, reflect padding, weight norm, 32 GroupNorm groups, 4 bandwidth embeddings (id 0 used),
eps 1e-6.
Inputs: 0.5 s of 24 kHz mono audio, input_values (2, 1, 12000) in [-1, 1], the second clip 9000 samples long and
right-padded with zeros; padding_mask (2, 12000).
"""
import math

import torch
from torch import nn
from transformers import WavTokenizerConfig, WavTokenizerModel

batch_size = 2
sampling_rate = 24000
num_samples = 12000  # 0.5 s
clip_lengths = [12000, 9000]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = WavTokenizerModel(config)
        codebook = self.model.encoder_model.quantizer.codebook
        with torch.no_grad():
            codebook.embed.normal_()
            codebook.embed_avg.copy_(codebook.embed)
            codebook.cluster_size.fill_(1.0)

    def forward(self, input_values, padding_mask):
        out = self.model(input_values=input_values, padding_mask=padding_mask)
        return out.audio_values, out.audio_codes, out.audio_codes_mask


def get_inputs():
    t = torch.arange(num_samples) / sampling_rate
    input_values = torch.zeros(batch_size, 1, num_samples)
    padding_mask = torch.zeros(batch_size, num_samples, dtype=torch.long)
    for i, n in enumerate(clip_lengths):
        # a few harmonics with a slow amplitude envelope, plus a little noise: speech-like level (peak ~0.5)
        f0 = 110.0 * (i + 1)
        wave = sum(torch.sin(2 * math.pi * f0 * k * t[:n]) / k for k in range(1, 6))
        wave = 0.25 * wave * (0.6 + 0.4 * torch.sin(2 * math.pi * 3.0 * t[:n])) + 0.01 * torch.randn(n)
        input_values[i, 0, :n] = wave
        padding_mask[i, :n] = 1
    return [input_values, padding_mask]


def get_init_inputs():
    # swiss-ai/wavtokenizer-large-unify-40token (the WavTokenizerConfig defaults). Kept: 24 kHz mono,
    # upsampling_ratios (6, 5, 5, 4), one residual layer per stage (dilation growth 2), compress 2, conv
    # shortcuts, non-causal convs, reflect padding, weight norm, kernel sizes 7 / 7 / 3, 2 LSTM layers,
    # adanorm_num_embeddings 4, 32 GroupNorm groups, norm_eps 1e-6.
    return [WavTokenizerConfig(
        num_filters=8,  # published 32
        hidden_size=128,  # published 512
        codebook_dim=128,  # published 512 (= hidden_size)
        codebook_size=512,  # published 4096
        decoder_hidden_size=128,  # published 768
        decoder_intermediate_size=384,  # published 2304
        decoder_num_layers=2,  # published 12
    )]
