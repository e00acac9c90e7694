"""X-Codec 2.0 speech codec (HKUST, "Llasa: Scaling Train-Time and Inference-Time Compute for Llama-based Speech
Synthesis": a 50 Hz single-codebook codec that fuses semantic and acoustic features and quantises them with FSQ).
One forward = encode + decode of a batch of 16 kHz waveforms: (1) semantic branch: a Wav2Vec2-BERT conformer
(relative-key attention, depthwise-conv modules, half-step FFNs) reads the stacked log-mel features (2 x 80 bins
per 20 ms), then a 4-conv residual adapter; (2) acoustic branch: a BigVGAN-style encoder on the raw waveform:
Conv1d, then 5 down-sampling blocks (strides 2, 2, 4, 4, 5 = hop 320), each three residual units with dilations
1 / 3 / 9 whose activations are anti-aliased SnakeBeta (x + sin^2(a x) / b, evaluated between a 2x Kaiser-sinc
transposed-conv upsampler and a 2x Kaiser-sinc strided-conv downsampler); (3) the two streams are concatenated,
mixed by a Linear, projected to 8 dimensions and finite-scalar quantised (tanh bounding, rounding to 4 levels per
dimension, straight-through; the code index = the mixed-radix number of the levels, 4^8 = 65536 codes), then
projected back; (4) a Vocos decoder: Linear, Conv1d, two GroupNorm / SiLU / Conv1d ResNet blocks, Llama-style
transformer layers (RMSNorm, RoPE, SwiGLU, bidirectional), two more ResNet blocks, LayerNorm, and an ISTFT head
(Linear to n_fft + 2 log-magnitude / phase channels, polar -> irfft, Hann window, overlap-add with F.fold, window
envelope normalisation, "same" padding); after `HKUSTAudio/xcodec2-hf`, shrunk.

Xcodec2Model (sdpa). Output: (audio_values (2, 1, 8000), audio_codes (2, 1, 25) int32). The codec's layers are
re-initialised in Model.__init__ (at the library's init the codes are constant and the audio exactly 0).
Shrunk: decoder hidden 1024 -> 64, 12 transformer layers -> 2, 16 heads -> 4, head_dim 64 -> 16, intermediate
4096 -> 256; acoustic encoder base width 48 -> 8 (channels 16 ... 256 instead of 96 ... 1536); Wav2Vec2-BERT hidden
1024 -> 64, 16 layers (the first 16 of w2v-BERT 2.0's 24) -> 2, heads 16 -> 4, intermediate 4096 -> 128, depthwise
kernel 31 -> 15; quantization_dim 2048 -> 128 (it must equal decoder hidden + semantic hidden, as published).
Kept: hop 320 (strides 2, 2, 4, 4, 5), n_fft 1280, FSQ levels 4^8, GroupNorm 32 groups, relative_key positions
(left 64 / right 8), 160-d stacked fbank input, SnakeBeta anti-aliasing filters (12 taps).
Inputs (as Xcodec2FeatureExtractor returns them): input_values (2, 1, 8000) (0.5 s; the second clip is 0.4 s,
zero-padded, padding_mask 0 on its tail), input_features (2, 25, 160) (normalised fbank pairs, the second clip's
last 5 frames padded with 1.0, input_features_mask 0 there), padding_mask (2, 1, 8000), input_features_mask (2, 25).
"""
import torch
from torch import nn
from transformers import Wav2Vec2BertConfig, Xcodec2Config, Xcodec2Model

batch_size = 2
hop_length = 320
num_frames = 25
num_samples = num_frames * hop_length  # 8000 = 0.5 s at 16 kHz
valid_frames = [25, 20]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Xcodec2Model(config)
        # transformers draws every codec Linear / Conv1d from N(0, 0.02) with zero bias: the acoustic branch decays to
        # ~1e-5 through its 16 convs, the 8 FSQ inputs all round to the same level (one code everywhere, project_out
        # of the zero code = 0), and the decoder, all biases zero, outputs exactly 0 (magnitude 1 / phase 0 -> an
        # impulse that the Hann window zeroes). Stand in for trained weights: PyTorch's default (fan-in) init for the
        # codec's own Linear / Conv1d layers (not the w2v-BERT encoder), and project_in scaled by 10 so that the FSQ
        # inputs span its levels (a few dozen distinct codes per batch).
        for part in (self.model.semantic_adapter, self.model.acoustic_encoder, self.model.fc_encoder,
                     self.model.quantizer, self.model.acoustic_decoder):
            for module in part.modules():
                if isinstance(module, (nn.Linear, nn.Conv1d)):
                    module.reset_parameters()
        with torch.no_grad():
            self.model.quantizer.project_in.weight.mul_(10.0)

    def forward(self, input_values, input_features, padding_mask, input_features_mask):
        out = self.model(
            input_values=input_values,
            input_features=input_features,
            padding_mask=padding_mask,
            input_features_mask=input_features_mask,
        )
        return out.audio_values, out.audio_codes


def get_inputs():
    input_values = torch.zeros(batch_size, 1, num_samples)
    padding_mask = torch.zeros(batch_size, 1, num_samples, dtype=torch.long)
    input_features = torch.ones(batch_size, num_frames, 160)  # feature-extractor padding value 1.0
    input_features_mask = torch.zeros(batch_size, num_frames, dtype=torch.long)
    for i in range(batch_size):
        n = valid_frames[i % len(valid_frames)]
        n_samples = n * hop_length
        t = torch.arange(n_samples) / 16000.0
        tone = 0.3 * torch.sin(2 * torch.pi * (120 + 80 * i) * t * (1 + 0.5 * t))  # a gliding voiced tone
        input_values[i, 0, :n_samples] = tone + 0.05 * torch.randn(n_samples)
        padding_mask[i, 0, :n_samples] = 1
        input_features[i, :n] = torch.randn(n, 160)
        input_features_mask[i, :n] = 1
    return [input_values, input_features, padding_mask, input_features_mask]


def get_init_inputs():
    # HKUSTAudio/xcodec2-hf config.json. Kept: downsampling_ratios (2, 2, 4, 4, 5), quantization_levels [4] * 8,
    # silu, rms_norm_eps 1e-6, sampling_rate 16000; semantic model: Wav2Vec2-BERT with relative_key positions,
    # feature_projection_input_dim 160, swish.
    semantic_model_config = Wav2Vec2BertConfig(
        hidden_size=64,  # published 1024
        num_hidden_layers=2,  # published 16
        num_attention_heads=4,  # published 16
        intermediate_size=128,  # published 4096
        feature_projection_input_dim=160,
        conv_depthwise_kernel_size=15,  # published 31
        position_embeddings_type="relative_key",
        left_max_position_embeddings=64,
        right_max_position_embeddings=8,
    )
    return [Xcodec2Config(
        hidden_size=64,  # published 1024
        intermediate_size=256,  # published 4096
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 16
        num_key_value_heads=4,  # published 16
        head_dim=16,  # published 64
        encoder_hidden_size=8,  # published 48
        downsampling_ratios=[2, 2, 4, 4, 5],
        semantic_model_config=semantic_model_config,
        quantization_dim=128,  # published 2048 (= hidden + semantic hidden)
        quantization_levels=[4, 4, 4, 4, 4, 4, 4, 4],
    )]
