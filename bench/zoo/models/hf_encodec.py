"""EnCodec neural audio codec (causal SEANet conv encoder: weight-normed strided convs with residual blocks, ELU,
a 2-layer LSTM with a skip at the bottleneck; a residual vector quantizer whose stages each pick the nearest of
1024 codewords for what the earlier stages left; the mirrored decoder with transposed convs), after
`facebook/encodec_24khz`, shrunk.

EncodecModel, full encode -> quantize -> decode pass at the default (lowest) bandwidth, 1.5 kbps: 2 of the 32
quantizer stages (1.5 kbps / (75 frames/s x 10 bits)). The 4 up/downsampling ratios (8, 5, 4, 2: hop 320, 75 frames
per second at 24 kHz), causal convs with reflect padding, kernel sizes 7 / 3 / 7, compress 2, dilation growth 2,
conv shortcuts, 2 LSTM layers, 1024 codewords per stage, the 5 target bandwidths and 32 stages are kept.
Shrunk: num_filters 32 -> 8 (encoder widths 32..512 -> 8..128), hidden_size (= codebook_dim) 128 -> 32.
Random init leaves EnCodec's codebooks at zero (trained ones come from k-means on encoder outputs, and EnCodec's
training initializes them with k-means on the first batch); Model.__init__ stands in for that, see there.
Inputs: 0.2 s of raw 24 kHz mono audio (2, 1, 4800) and the feature extractor's padding_mask (2, 4800) whose
second sample is zero-padded over its last 1200 samples.
Outputs: the decoded audio `audio_values` (2, 1, 4800) and the codes `audio_codes` (1 chunk, 2, 2 stages, 15
frames, int64).
"""
import torch
from torch import nn
from transformers import EncodecConfig, EncodecModel

batch_size = 2
num_samples = 4800  # 0.2 s at 24 kHz: 15 frames of 320 samples


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = EncodecModel(config)
        # EnCodec's random init leaves every codebook at zero, so every frame would get code 0 and the decoder a
        # constant input. Stand in for trained codebooks the way EnCodec's training starts them (k-means init on
        # the first batch): encode a probe batch of random audio and, stage by stage, draw each stage's codewords
        # from the frames it is given (the encoder output, then the residuals left by the earlier stages), plus a
        # little noise so that repeated draws differ.
        with torch.no_grad():
            probe = torch.randn(8, config.audio_channels, 4 * num_samples) * 0.1
            residual = self.model.encoder(probe)  # (8, codebook_dim, frames)
            for layer in self.model.quantizer.layers:
                frames = residual.transpose(1, 2).reshape(-1, residual.shape[1])
                pick = torch.randint(0, frames.shape[0], (config.codebook_size,))
                embed = frames[pick] + 0.5 * frames.std(0) * torch.randn(config.codebook_size, frames.shape[1])
                layer.codebook.embed.copy_(embed)
                residual = residual - layer.decode(layer.encode(residual))

    def forward(self, input_values, padding_mask):
        out = self.model(input_values=input_values, padding_mask=padding_mask)
        return out.audio_values, out.audio_codes


def get_inputs():
    input_values = torch.randn(batch_size, 1, num_samples) * 0.1  # raw waveform in [-1, 1]
    padding_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    padding_mask[1, -1200:] = 0
    input_values[1, :, -1200:] = 0.0  # the feature extractor pads with zeros
    return [input_values, padding_mask]


def get_init_inputs():
    # facebook/encodec_24khz config.json. Kept: sampling_rate 24000, mono, target_bandwidths (1.5, 3, 6, 12, 24),
    # no normalization, no chunking (chunk_length_s / overlap null), num_residual_layers 1, upsampling_ratios
    # (8, 5, 4, 2), weight_norm, kernel 7 / last kernel 7 / residual kernel 3, dilation_growth_rate 2, causal
    # convs, reflect padding, compress 2, 2 LSTM layers, trim_right_ratio 1.0, codebook_size 1024,
    # conv shortcuts.
    return [EncodecConfig(
        target_bandwidths=[1.5, 3.0, 6.0, 12.0, 24.0],
        sampling_rate=24_000,
        audio_channels=1,
        normalize=False,
        chunk_length_s=None,
        overlap=None,
        hidden_size=32,  # published 128
        num_filters=8,  # published 32
        num_residual_layers=1,
        upsampling_ratios=[8, 5, 4, 2],
        norm_type="weight_norm",
        kernel_size=7,
        last_kernel_size=7,
        residual_kernel_size=3,
        dilation_growth_rate=2,
        use_causal_conv=True,
        pad_mode="reflect",
        compress=2,
        num_lstm_layers=2,
        trim_right_ratio=1.0,
        codebook_size=1024,
        codebook_dim=32,  # published null (= hidden_size 128)
        use_conv_shortcut=True,
    )]
