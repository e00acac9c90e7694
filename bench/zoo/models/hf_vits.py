"""VITS text-to-speech (Kim et al., ICML 2021, "Conditional Variational Autoencoder with Adversarial Learning for
End-to-End Text-to-Speech"; the MMS-TTS checkpoints, `facebook/mms-tts-eng`), one inference forward: characters to
waveform in a single pass whose output length is decided by the model. A transformer text encoder (relative-position
self-attention with learned key / value embeddings over a window of +-4 positions, conv1d FFNs, post-LN, masked by
the padding) gives per-character prior means and log-variances. The stochastic duration predictor runs its
normalising flow in reverse (conditioned on the text states through dilated depth-separable convs): element-wise
affine flows, channel flips and rational-quadratic spline coupling layers (piecewise-rational monotone splines with
10 bins and linear tails outside +-5: searchsorted bin lookup, per-bin quadratic solve) turn noise into
log-durations. The durations are exponentiated, ceiled and summed into each sample's frame count, so the output
length depends on the values; a hard monotonic alignment matrix is built from the cumulative durations (an arange
compared against cumsum, differenced) and expands the priors to frames by matmul. The prior sample runs through the
reverse residual-coupling flow (WaveNet-style gated dilated convs with flips), and a HiFi-GAN generator (transposed
conv upsampling, multi-receptive-field residual blocks of dilated convs with leaky ReLU, tanh) makes the waveform.

VitsModel; the output is the tuple (waveform (2, samples), spectrogram (2, flow_size, frames)) with samples =
frames x 64, both zero past each sample's own length. The posterior encoder (used only in training) is built but
not run, as in inference.
Shrunk: hidden 192 -> 64, 6 encoder layers -> 2, ffn 768 -> 128, flow_size 192 -> 32, spectrogram_bins 513 -> 64
(posterior encoder input only), duration-predictor filter channels 256 -> 64, posterior WaveNet layers 16 -> 2,
HiFi-GAN initial channels 512 -> 64 with upsample rates (8, 8, 2, 2) -> (4, 4, 2, 2) (kernels (16, 16, 4, 4) ->
(8, 8, 4, 4): 64 samples per frame instead of 256).
noise_scale 0.667 -> 0 and noise_scale_duration 0.8 -> 0: the forward draws torch.randn for the prior and the
duration noise; scaled by zero it contributes nothing, so the output is deterministic (the mean / mode synthesis).
Kept: 2 heads with window 4, vocab 38 with blank 0, stochastic duration prediction with 4 flows of 10 spline bins
and tail bound 5, 4 prior flows of 4 WaveNet layers (kernel 5), resblock kernels (3, 7, 11) with dilations (1, 3, 5),
leaky ReLU slope 0.1, speaking_rate 1, layer_norm_eps 1e-5.
Inputs: input_ids (2, 27): characters interspersed with the blank token 0 as VitsTokenizer does (add_blank), the
second utterance 19 tokens long and right-padded; attention_mask.
"""
import torch
from torch import nn
from transformers import VitsConfig, VitsModel

batch_size = 2
seq_len = 27
text_lens = [27, 19]
vocab_size = 38


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VitsModel(config)

    def forward(self, input_ids, attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        return out.waveform, out.spectrogram


def get_inputs():
    input_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for b in range(batch_size):
        n = text_lens[b % len(text_lens)]
        chars = torch.randint(1, vocab_size, ((n - 1) // 2,))
        input_ids[b, 1:n:2] = chars  # blank (0) at the even positions, as add_blank interleaves it
        attention_mask[b, :n] = 1
    return [input_ids, attention_mask]


def get_init_inputs():
    # facebook/mms-tts-eng config.json (= the VitsConfig defaults). Kept: vocab 38, 2 heads, window_size 4,
    # relu FFN with kernel 3, stochastic duration predictor (4 flows, 10 bins, tail bound 5, kernel 3),
    # 4 prior flows x 4 WaveNet layers (kernel 5, dilation rate 1), resblocks (3, 7, 11) x (1, 3, 5),
    # leaky_relu_slope 0.1, depth_separable 2 channels x 3 layers, speaking_rate 1, sampling_rate 16000.
    return [VitsConfig(
        vocab_size=vocab_size,
        hidden_size=64,  # published 192
        num_hidden_layers=2,  # published 6
        num_attention_heads=2,
        window_size=4,
        ffn_dim=128,  # published 768
        flow_size=32,  # published 192
        spectrogram_bins=64,  # published 513
        duration_predictor_filter_channels=64,  # published 256
        posterior_encoder_num_wavenet_layers=2,  # published 16
        upsample_initial_channel=64,  # published 512
        upsample_rates=[4, 4, 2, 2],  # published [8, 8, 2, 2]
        upsample_kernel_sizes=[8, 8, 4, 4],  # published [16, 16, 4, 4]
        noise_scale=0.0,  # published 0.667 (random noise; zero keeps the forward deterministic)
        noise_scale_duration=0.0,  # published 0.8
    )]
