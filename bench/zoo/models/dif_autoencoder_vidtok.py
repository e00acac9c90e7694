"""diffusers `AutoencoderVidTok`: VidTok (Microsoft, 2024, arXiv 2412.13061), a causal video tokenizer, in its
discrete FSQ form (`vidtok_fsq_causal_488_262144`: 4x temporal, 8x8 spatial compression, a 262144-entry implicit
codebook), shrunk. Encode -> quantise -> decode of a short clip. What sets it apart from the other video VAEs:
  - Factorised 2-D / 1-D processing: most ResNet blocks are per-frame 2-D convs (LayerNorm over channels, SiLU), each
    followed by a temporal ResNet block of CAUSAL 1-D convs along time at every pixel; only the stem, the temporal
    down / up samplers and the mid blocks are 3-D. Causal convs pad the past by repeating the first frame (and keep a
    causal_cache of the last frames for chunked streaming, reset at each encode / decode).
  - Temporal downsampling is a learned blend: alpha * AvgPool3d((3,1,1), stride (2,1,1)) + (1 - alpha) * a strided
    causal 3-D conv, alpha = sigmoid(mix_factor); temporal upsampling likewise blends trilinear interpolation along
    time (the first frame handled on its own, so 1 + 4k frames map to 1 + k latents and back) with a causal conv.
    Spatial down / up sampling are asymmetric-pad stride-2 convs and nearest x2 + conv, per frame.
  - Mid blocks: 3-D ResNet blocks around a self-attention block whose q / k / v / out are 1 x 1 x 1 causal convs and
    whose attention runs over the h * w positions of each latent frame separately.
  - Bottleneck: finite scalar quantisation (FSQ, Mentzer et al. 2023) of the 6 latent channels to 8 levels each
    (8^6 = 262144 codes): z -> tanh(z + shift) * half_width - offset, rounded with a straight-through estimator,
    rescaled to [-1, 1]; the integer code index is sum(digit * 8^i). No KL, no codebook lookup.
  - The input is padded causally: replicate-padded at the end to 1 + 4k frames, and by 3 frames at the front.

Shrunk: base channels 128 -> 16 (widths 16, 32, 64, 64 with ch_mult (1, 2, 4, 4) kept), ResNet blocks per level
2 -> 1. Kept: the FSQ levels and codebook size, z_channels 6, the default spatial / temporal down-sampling layout
(spatial at levels 0-2, temporal at levels 1-2: 4x8x8), causal mode.
Input: a clip (2, 3, 9, 24, 24) in [-1, 1] (9 frames -> 3 latent frames of 3 x 3). Output: the reconstruction
(2, 3, 9, 24, 24).
"""
import torch
from diffusers import AutoencoderVidTok
from torch import nn

batch_size = 2
num_frames = 9
image_size = 24


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderVidTok(**config)

    def forward(self, video):
        return self.model(video).sample


def get_inputs():
    return [torch.randn(batch_size, 3, num_frames, image_size, image_size).clamp(-1.0, 1.0)]


def get_init_inputs():
    # microsoft/VidTok vidtok_fsq_causal_488_262144 (AutoencoderVidTok defaults plus the FSQ settings), shrunk where
    # commented.
    return [dict(
        in_channels=3,
        out_channels=3,
        ch=16,  # published 128
        ch_mult=[1, 2, 4, 4],
        z_channels=6,
        double_z=False,
        num_res_blocks=1,  # published 2
        regularizer="fsq",
        codebook_size=262144,
        is_causal=True,
    )]
