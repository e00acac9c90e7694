"""Descript Audio Codec (Kumar et al. 2023, "High-Fidelity Audio Compression with Improved RVQGAN"), after
`descript/dac_16khz`, shrunk.

DacModel, full encode -> quantize -> decode pass with all codebooks. Encoder: conv (kernel 7) then 4 blocks, each 3
residual units (Snake -> dilated conv k7 (dilations 1, 3, 9) -> Snake -> 1x1 conv, plus the skip) then Snake and a
strided conv (kernel 2 x stride) that doubles the width; Snake and a conv (kernel 3) to the latent width. Snake
activation: x + sin^2(alpha x) / (alpha + 1e-9) with a learned alpha per channel. Residual vector quantizer: each of
the 12 stages projects the residual to an 8-dim space (1x1 conv), picks the nearest of 1024 codewords by cosine
similarity (L2-normalized codes and codebook), looks the raw codeword up, projects it back (1x1 conv) and subtracts
it from the residual; the stage outputs are summed. Decoder: conv (kernel 7), 4 blocks of Snake -> transposed conv
(kernel 2 x stride) that halves the width -> 3 residual units, then Snake, conv (kernel 7) to 1 channel, tanh.
Every conv, transposed conv and quantizer projection is weight-normalized (weight = g * v / ||v||), as the original
descript `dac` package runs it: Model.__init__ calls DacModel.apply_weight_norm(), the parametrization HF's
conversion script loads the original weights into (the converted hub checkpoint then has it folded away).
The 16 kHz model's strides (2, 4, 5, 8: hop 320, 50 frames per second), 12 codebooks of 1024 x 8 and the residual
unit dilations are kept. Shrunk: encoder_hidden_size 64 -> 8 (encoder widths 64..1024 -> 8..128, latent
hidden_size 1024 -> 128), decoder_hidden_size 1536 -> 128 (decoder widths 1536..96 -> 128..8).
Input: 0.5 s of raw 16 kHz mono audio (2, 1, 8000) (25 frames).
Outputs: the reconstruction `audio_values` (2, 7992) (the decoder's transposed convs give 320 x 25 - 8 samples;
DacModel trims to the input length, which is longer), the summed quantized latents `quantized_representation`
(2, 128, 25) and the codes `audio_codes` (2, 12, 25, int64).
"""
import torch
from torch import nn
from transformers import DacConfig, DacModel

batch_size = 2
num_samples = 8000  # 0.5 s at 16 kHz: 25 frames of 320 samples


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DacModel(config)
        self.model.apply_weight_norm()

    def forward(self, input_values):
        out = self.model(input_values=input_values)
        return out.audio_values, out.quantized_representation, out.audio_codes


def get_inputs():
    return [torch.randn(batch_size, 1, num_samples) * 0.1]  # raw waveform in [-1, 1]


def get_init_inputs():
    # descript/dac_16khz config.json. Kept: downsampling_ratios (2, 4, 5, 8) (hop 320), n_codebooks 12,
    # codebook_size 1024, codebook_dim 8, sampling_rate 16000, loss weights 0.25 / 1.0.
    return [DacConfig(
        encoder_hidden_size=8,  # published 64
        downsampling_ratios=[2, 4, 5, 8],
        decoder_hidden_size=128,  # published 1536
        n_codebooks=12,
    )]
