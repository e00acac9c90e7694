"""SEW, Squeezed and Efficient Wav2vec (Wu et al. 2021, "Performance-Efficiency Trade-offs in Unsupervised
Pre-training for Speech Recognition"): a wav2vec 2.0-style speech encoder made cheaper mainly by running its
transformer at a reduced frame rate. The raw waveform goes through a 13-layer conv feature extractor (wav2vec 2.0's
7 strided convs with cheap kernel-1 convs interleaved, channels growing 64 -> 512; GroupNorm after the first conv,
GELU, total stride 320 = 20 ms frames at 16 kHz), then a LayerNorm, with padded frames zeroed; the frame sequence
is then SQUEEZED: average-pooled by squeeze_factor 2 in time and added to a convolutional relative positional
embedding (a weight-normalized grouped Conv1d of width 31 with the same stride 2, GELU), so the transformer runs at
half the frame rate; after post-LN transformer layers (LayerNorm before the first layer, attention with the padded
frames masked), an UPSAMPLING layer (linear to squeeze_factor x width, GELU, reshape width into time) restores the
original frame rate, zero-padding the odd last frame. After `asapp/sew-tiny-100k`, shrunk.

SEWModel. Shrunk: hidden 512 -> 128, 12 transformer layers -> 2, 8 heads -> 4, intermediate 2048 -> 512, conv
extractor channels (64, 128 x 4, 256 x 4, 512 x 4) -> (32, 64 x 4, 128 x 8) (13 layers with the published kernels
and strides kept; the last conv width still equals the model width, so there is no feature projection, as
published); squeeze_factor 2, 31-wide positional conv with 16 groups as published.
Inputs: input_values (2, 16000): 1 s of 16 kHz raw waveform per sample, the second clip 0.75 s long (zero-padded
after 12000 samples) with attention_mask zero there.
Output: last_hidden_state (2, 49, 128) (20 ms frames).
"""
import torch
from torch import nn
from transformers import SEWConfig, SEWModel

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SEWModel(config)

    def forward(self, input_values, attention_mask):
        return self.model(input_values=input_values, attention_mask=attention_mask).last_hidden_state


def get_inputs():
    input_values = 0.1 * torch.randn(batch_size, num_samples)
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    input_values[1, 12000:] = 0.0  # second clip is 0.75 s, zero-padded
    attention_mask[1, 12000:] = 0
    return [input_values, attention_mask]


def get_init_inputs():
    # asapp/sew-tiny-100k config.json. Kept: gelu, layer_norm_eps 1e-5, feat_extract_norm "group", conv_bias
    # False, conv kernels / strides, squeeze_factor 2, num_conv_pos_embeddings 31 with 16 groups,
    # initializer_range 0.02; dropouts, layerdrop and SpecAugment masking are training-only (inactive in eval).
    return [SEWConfig(
        vocab_size=32,
        hidden_size=128,  # published 512
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 8
        intermediate_size=512,  # published 2048
        squeeze_factor=2,
        hidden_act="gelu",
        hidden_dropout=0.1,
        activation_dropout=0.1,
        attention_dropout=0.1,
        feat_proj_dropout=0.0,
        final_dropout=0.1,
        layerdrop=0.1,
        initializer_range=0.02,
        layer_norm_eps=1e-5,
        feat_extract_norm="group",
        feat_extract_activation="gelu",
        # published (64, 128, 128, 128, 128, 256, 256, 256, 256, 512, 512, 512, 512)
        conv_dim=(32, 64, 64, 64, 64, 128, 128, 128, 128, 128, 128, 128, 128),
        conv_stride=(5, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1),
        conv_kernel=(10, 3, 1, 3, 1, 3, 1, 3, 1, 2, 1, 2, 1),
        conv_bias=False,
        num_conv_pos_embeddings=31,
        num_conv_pos_embedding_groups=16,
        apply_spec_augment=True,
        mask_time_prob=0.05,
    )]
