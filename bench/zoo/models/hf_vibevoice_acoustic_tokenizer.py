"""VibeVoice acoustic tokenizer (`microsoft/VibeVoice-1.5B`'s sigma-VAE speech codec,
VibeVoiceAcousticTokenizerModel), shrunk: a fully causal 1D convolutional autoencoder that turns 24 kHz audio into
continuous latent frames at 7.5 Hz (a 3200 x hop, the lowest frame rate of the speech codecs in the zoo) and back, run
as encode -> latent mean (sample=False: no sigma-VAE noise) -> decode. Encoder: a causal stem conv (kernel 7, left
padding only) then six stages, each a strided causal Conv1d (kernel 2 x stride, strides 2, 2, 4, 5, 5, 8, channels
doubling from num_filters) followed by 1D ConvNeXt blocks, and a causal head conv to the latent width. ConvNeXt block:
RMSNorm over channels -> causal depthwise Conv1d (kernel 7) -> per-channel layer scale -> residual, then RMSNorm ->
Linear 4x GELU Linear -> layer scale -> residual. Decoder: the mirror, a causal stem conv and ConvNeXt blocks at the
widest width, then six causal ConvTranspose1d upsamplers (kernel 2 x stride, strides 8, 5, 5, 4, 2, 2; the right
overhang trimmed) each followed by ConvNeXt blocks, and a causal head conv to the waveform.

Shrunk: num_filters 32 -> 4 (widths 4 ... 256 instead of 32 ... 2048), depths (3, 3, 3, 3, 3, 3, 8) -> (2, 1, 1, 1, 1,
1, 2) (the decoder uses them reversed), latent hidden_size 64 -> 32.
Kept: downsampling ratios (2, 2, 4, 5, 5, 8) (hop 3200), kernel 7, ffn_expansion 4, GELU, rms_norm_eps 1e-5, causal
padding everywhere. Two deviations from the class's initial values: the ConvNeXt layer scales (1e-6 in the class,
trained in the checkpoint) get fixed values in [0.1, 0.5], and the conv / Linear weights and biases are drawn
uniform(+-1/sqrt(fan_in)) (PyTorch's default) instead of the class's N(0, 0.01), under which the 34 stacked
convolutions (and 36 Linears) shrink the waveform to ~1e-8.
Input: waveform input_values (2, 1, 19200) (0.8 s at 24 kHz). Outputs: the reconstructed audio (2, 1, 19200) and the
latents (2, 6, 32).
"""
import torch
from torch import nn
from transformers import VibeVoiceAcousticTokenizerConfig, VibeVoiceAcousticTokenizerModel

batch_size = 2
num_samples = 19200  # 0.8 s at 24 kHz: 6 latent frames


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VibeVoiceAcousticTokenizerModel(config)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for name, p in self.model.named_parameters():
                if name.endswith("gamma"):
                    p.copy_(0.1 + 0.4 * torch.rand(p.shape, generator=gen))
            for m in self.model.modules():
                if isinstance(m, (nn.Conv1d, nn.ConvTranspose1d, nn.Linear)):
                    w = m.weight
                    if isinstance(m, nn.ConvTranspose1d):
                        fan_in = w.shape[0] * w.shape[2] // m.groups
                    else:
                        fan_in = w[0].numel()
                    bound = fan_in ** -0.5
                    w.uniform_(-bound, bound, generator=gen)
                    if m.bias is not None:
                        m.bias.uniform_(-bound, bound, generator=gen)

    def forward(self, input_values):
        out = self.model(input_values, sample=False)
        return out.audio, out.latents


def get_inputs():
    t = torch.arange(num_samples) / 24000.0
    tone = 0.3 * torch.sin(2 * torch.pi * 220.0 * t)
    return [(tone + 0.05 * torch.randn(batch_size, 1, num_samples)).contiguous()]


def get_init_inputs():
    # microsoft/VibeVoice-1.5B acoustic tokenizer (the VibeVoiceAcousticTokenizerConfig defaults). Kept: channels 1,
    # kernel_size 7, downsampling_ratios (2, 2, 4, 5, 5, 8), ffn_expansion 4, gelu, rms_norm_eps 1e-5, vae_std 0.625
    # (unused: sample=False).
    return [VibeVoiceAcousticTokenizerConfig(
        num_filters=4,  # published 32
        depths=(2, 1, 1, 1, 1, 1, 2),  # published (3, 3, 3, 3, 3, 3, 8)
        hidden_size=32,  # published 64
    )]
