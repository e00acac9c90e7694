"""UnivNet neural vocoder (Jang et al. 2021, "UnivNet: A Neural Vocoder with Multi-Resolution Spectrogram
Discriminators for High-Fidelity Waveform Generation"; the generator, UnivNet-c32), after `dg845/univnet-dev` (its
configuration = the UnivNetConfig defaults), at its published size with a short clip.

UnivNetModel. The generator starts from a Gaussian noise sequence (one 64-channel noise vector per spectrogram frame),
not from the spectrogram: conv_pre (kernel 7, reflect padding) -> 3 LVC blocks -> leaky ReLU -> conv_post (kernel 7,
reflect padding, 1 channel) -> tanh. Each LVC block: leaky ReLU, a transposed conv upsampling by its stride (8, 8, 4:
hop lengths 8, 64, 256 samples per frame), a kernel predictor run on the log-mel spectrogram (conv k5 -> leaky ReLU ->
residual conv blocks -> one conv emitting, per frame, the weights of every location-variable convolution of the
block (in x 2*in x kernel 3 x 4 layers) and another their biases), then 4 LVC residual layers: leaky ReLU -> dilated
conv (dilations 1, 3, 9, 27) -> leaky ReLU -> location-variable convolution (the signal is padded, unfolded into one
window per frame and convolved with that frame's predicted kernel by an einsum, plus the frame's bias) -> gated
activation sigmoid(a) * tanh(b) -> residual add.
Not shrunk in width or depth: the published generator is already small (14.8 M parameters, most of them in the
three kernel-emitting convs) and runs in ~0.6 s on one CPU thread for this input; only the clip is short
(48 frames, 0.5 s). Published and kept: num_mel_bins 100, model_in_channels (noise channels) 64 (which is also the
width of the kernel predictor's residual blocks, so it must equal kernel_predictor_hidden_channels 64),
model_hidden_channels 32 (the LVC width), resblock kernel 3, strides (8, 8, 4) (hop 256), dilations (1, 3, 9, 27) in
every block, 3 kernel predictor residual blocks, kernel predictor conv size 3, leaky ReLU slope 0.2.
Inputs, as UnivNetFeatureExtractor returns them (24 kHz, hop 256, pad_end False): input_features, the log-mel
spectrogram (2, 48, 100) (natural log of the clipped mel amplitude, so in [log 1e-5, ~2.3]; do_normalize False): the
first clip is 12288 samples (48 frames), the second 9216 samples (36 frames) padded with silence to 12288, so its
last 12 frames hold the silence value log(1e-5); noise_sequence (2, 48, 64), standard Gaussian noise, passed in as
the feature extractor returns it (return_noise True; the model would otherwise draw it with torch.randn);
padding_mask (2, 12288) int32, the sample-level mask of the padding (the model only sums it into waveform_lengths
for batch_decode, it does not change the waveforms).
Output: waveforms (2, 12288) = 48 frames x 256 samples, in [-1, 1].
"""
import math

import torch
from torch import nn
from transformers import UnivNetConfig, UnivNetModel

batch_size = 2
num_frames = 48
hop_length = 256
num_samples = num_frames * hop_length  # 12288 samples = 0.512 s at 24 kHz
num_mel_bins = 100
model_in_channels = 64
silence_log_mel = math.log(1e-5)  # compression_clip_val


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UnivNetModel(config)

    def forward(self, input_features, noise_sequence, padding_mask):
        return self.model(
            input_features=input_features, noise_sequence=noise_sequence, padding_mask=padding_mask
        ).waveforms


def get_inputs():
    input_features = (torch.randn(batch_size, num_frames, num_mel_bins) * 2.0 - 5.0).clamp(silence_log_mel, 2.3)
    input_features[1, 36:] = silence_log_mel  # the second clip's padding is silence
    noise_sequence = torch.randn(batch_size, num_frames, model_in_channels)
    padding_mask = torch.ones(batch_size, num_samples, dtype=torch.int32)
    padding_mask[1, 9216:] = 0
    return [input_features, noise_sequence, padding_mask]


def get_init_inputs():
    # dg845/univnet-dev config.json (UnivNet-c32 = the UnivNetConfig defaults), all kept: 64 noise channels, 100 mel
    # bins, model_hidden_channels 32, resblock kernels (3, 3, 3), strides (8, 8, 4), dilations (1, 3, 9, 27) x 3,
    # 3 kernel predictor blocks of 64 channels, kernel predictor conv size 3, kernel predictor dropout 0,
    # initializer_range 0.01, leaky_relu_slope 0.2.
    return [UnivNetConfig(
        model_in_channels=model_in_channels,
        model_hidden_channels=32,
        num_mel_bins=num_mel_bins,
        resblock_kernel_sizes=(3, 3, 3),
        resblock_stride_sizes=(8, 8, 4),
        resblock_dilation_sizes=((1, 3, 9, 27), (1, 3, 9, 27), (1, 3, 9, 27)),
        kernel_predictor_num_blocks=3,
        kernel_predictor_hidden_channels=64,  # must equal model_in_channels (the residual blocks use that width)
        kernel_predictor_conv_size=3,
        kernel_predictor_dropout=0.0,
        initializer_range=0.01,
        leaky_relu_slope=0.2,
    )]
