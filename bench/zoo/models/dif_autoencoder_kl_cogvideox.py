"""diffusers `AutoencoderKLCogVideoX`: the CogVideoX causal 3D video VAE. Every 3 x 3 x 3 convolution is causal in
time (CogVideoXCausalConv3d: the first frame is replicated kernel-1 times on the past side, nothing on the future
side, and a conv cache carries the last frames between chunks); residual blocks of (GroupNorm, SiLU, causal conv);
downsampling is a stride-2 2D conv per frame, and in the first log2(4) = 2 levels also a temporal average pool that
keeps the first frame apart and halves the rest (1 + 4k frames -> 1 + 2k -> 1 + k); the decoder conditions every
GroupNorm on the latent through a spatial norm (CogVideoXSpatialNorm3D: the latent, its first frame and the rest
interpolated separately to the feature size, gives a per-pixel scale and shift), and upsamples by nearest
interpolation + conv per frame, doubling time too (again first frame apart) in its first 2 levels; no attention
anywhere (mid blocks are 2 resnets); a diagonal Gaussian posterior over 16 latent channels. The encoder walks the
video in chunks of 8 frames (the odd first frame joins the first chunk) and the decoder 2 latent frames at a time
(first chunk 3), chaining the conv caches; the 9-frame clip here is a single chunk for both.

Architecture after THUDM/CogVideoX-2b `vae/config.json`, shrunk: block_out_channels (128, 256, 256, 512) ->
(32, 64, 64, 128), layers_per_block 3 -> 1, sample 49 frames x 480 x 720 -> 9 frames x 32 x 48 (same 2:3 aspect,
1 + 8 frames: one encoder chunk, 3 latent frames of 4 x 6). Kept: 4 levels (3 spatial downsamples, 8x),
temporal_compression_ratio 4, latent_channels 16, norm_num_groups 32, norm_eps 1e-6, silu, no quant / post-quant
conv, scaling_factor 1.15258426 (config only, used by the pipelines).
Input: a video in [-1, 1] (batch, 3, 9 frames, 32, 48).
Output: the reconstruction `.sample` (batch, 3, 9, 32, 48), decoded from the posterior mean
(forward with sample_posterior=False), so it is deterministic.
"""
import torch
from torch import nn
from diffusers import AutoencoderKLCogVideoX

batch_size = 2
num_frames = 9  # published 49 (1 + 8k frames)
height = 32  # published 480
width = 48  # published 720


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderKLCogVideoX(**config)

    def forward(self, video):
        return self.model(video, sample_posterior=False).sample


def get_inputs():
    return [torch.rand(batch_size, 3, num_frames, height, width) * 2 - 1]


def get_init_inputs():
    return [dict(
        in_channels=3,
        out_channels=3,
        down_block_types=("CogVideoXDownBlock3D",) * 4,
        up_block_types=("CogVideoXUpBlock3D",) * 4,
        block_out_channels=(32, 64, 64, 128),  # published (128, 256, 256, 512)
        latent_channels=16,
        layers_per_block=1,  # published 3
        act_fn="silu",
        norm_eps=1e-6,
        norm_num_groups=32,
        temporal_compression_ratio=4,
        sample_height=height,  # published 480 (only sets the tiling thresholds; tiling is off)
        sample_width=width,  # published 720
        scaling_factor=1.15258426,
        shift_factor=None,
        latents_mean=None,
        latents_std=None,
        force_upcast=True,
        use_quant_conv=False,
        use_post_quant_conv=False,
    )]
