"""Parakeet CTC (NVIDIA NeMo FastConformer encoder + CTC head; Rekesh et al. 2023, "Fast Conformer with Linearly
Scalable Attention for Efficient Speech Recognition"), as ported to transformers (ParakeetForCTC). The 80-bin
log-mel input is subsampled 8x in time (and frequency) by a depthwise-separable 2D conv stack: a stride-2 3x3
conv + ReLU, then two (stride-2 depthwise 3x3 conv, pointwise 1x1 conv, ReLU) stages, each conv followed by
re-masking of the padded frames; the flattened channels x frequency map is projected linearly to the model width
and scaled by sqrt(d_model) (xscaling). Each Conformer block is macaron-style: a half-step (0.5 x) SiLU FFN,
multi-head self-attention with Transformer-XL relative sinusoidal positions (learned per-head content bias u and
position bias v, a linear projection of the relative positions, the rel-shift trick), a convolution module
(pointwise conv to 2x width + GLU, depthwise 1D conv of kernel 9, BatchNorm, SiLU, pointwise conv), a second
half-step FFN, all pre-LN with residuals, and a final LayerNorm. The padded frames are masked out of attention
and zeroed before the depthwise conv. A kernel-1 Conv1d CTC head gives per-frame logits over the BPE vocabulary
plus blank. After `nvidia/parakeet-ctc-1.1b`, shrunk.

ParakeetForCTC. Shrunk: hidden 1024 -> 128, 42 Conformer blocks -> 2, 8 heads -> 4 (head dim 128 -> 32),
intermediate 4096 -> 512, subsampling_conv_channels 256 -> 64; 80 mel bins, subsampling factor 8 (3 stride-2
stages, kernel 3), conv kernel 9, SiLU, attention / conv biases, scale_input and the 1025-way vocabulary (1024
BPE tokens + blank, pad id 1024) as published.
Inputs: input_features (2, 100, 80): per-feature normalized log-mel frames (10 ms hop, so 1 s of 16 kHz audio)
as ParakeetFeatureExtractor writes them, with the second sample 0.7 s long (its last 30 frames zero) and its
attention_mask zero there.
Output: CTC logits (2, 13, 1025).
"""
import torch
from torch import nn
from transformers import ParakeetCTCConfig, ParakeetEncoderConfig, ParakeetForCTC

batch_size = 2
num_frames = 100
num_mel_bins = 80


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ParakeetForCTC(config)

    def forward(self, input_features, attention_mask):
        return self.model(input_features=input_features, attention_mask=attention_mask).logits


def get_inputs():
    input_features = torch.randn(batch_size, num_frames, num_mel_bins)
    attention_mask = torch.ones(batch_size, num_frames, dtype=torch.long)
    attention_mask[1, -30:] = 0  # second clip is 0.7 s
    input_features[1, -30:] = 0.0  # the feature extractor zeroes padded frames
    return [input_features, attention_mask]


def get_init_inputs():
    # nvidia/parakeet-ctc-1.1b config.json. Kept: silu, attention_bias / convolution_bias True, conv_kernel_size 9,
    # subsampling_factor 8, subsampling conv kernel 3 / stride 2, num_mel_bins 80, scale_input True,
    # max_position_embeddings 5000, initializer_range 0.02, dropout / attention / activation dropout 0.1 and
    # layerdrop 0.1 (all inactive in eval), vocab 1025 with pad (blank) 1024, ctc_zero_infinity True.
    encoder_config = ParakeetEncoderConfig(
        hidden_size=128,  # published 1024
        num_hidden_layers=2,  # published 42
        num_attention_heads=4,  # published 8
        intermediate_size=512,  # published 4096
        hidden_act="silu",
        attention_bias=True,
        convolution_bias=True,
        conv_kernel_size=9,
        subsampling_factor=8,
        subsampling_conv_channels=64,  # published 256
        num_mel_bins=num_mel_bins,
        subsampling_conv_kernel_size=3,
        subsampling_conv_stride=2,
        dropout=0.1,
        dropout_positions=0.0,
        layerdrop=0.1,
        activation_dropout=0.1,
        attention_dropout=0.1,
        max_position_embeddings=5000,
        scale_input=True,
        initializer_range=0.02,
    )
    return [ParakeetCTCConfig(
        vocab_size=1025,
        ctc_loss_reduction="mean",
        ctc_zero_infinity=True,
        encoder_config=encoder_config,
        pad_token_id=1024,
    )]
