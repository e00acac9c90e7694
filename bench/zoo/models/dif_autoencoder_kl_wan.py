"""diffusers `AutoencoderKLWan`: the Wan 2.1 causal 3D video VAE. Every 3D convolution is causal in time (the
temporal padding is all on the past side); the encoder walks the video in chunks (the first frame alone, then 4
frames at a time) and the decoder one latent frame at a time, each chunk reading the last 2 frames of every causal
conv's input from the previous chunk through a per-conv feature cache (so chunked processing equals a full causal
pass). Blocks are residual units of (channel RMS norm, SiLU, causal 3 x 3 x 3 conv); downsampling is a
zero-padded stride-2 2D conv per frame, plus a stride-2 causal temporal conv in the "downsample3d" levels;
upsampling is nearest-exact 2D resize + conv per frame, doubling time in the "upsample3d" levels through a causal
temporal conv whose output is split into two interleaved frames; the mid blocks hold a single-head per-frame
spatial self-attention; a diagonal Gaussian posterior over z_dim channels; the decoded video is clamped to [-1, 1].

Architecture after Wan-AI/Wan2.1-T2V-1.3B-Diffusers `vae/config.json`, shrunk: base_dim 96 -> 32 (so level widths
(96, 192, 384, 384) -> (32, 64, 128, 128)), num_res_blocks 2 -> 1. Kept: z_dim 16, dim_mult (1, 2, 4, 4) (3 spatial
downsamples: 8x), temperal_downsample (False, True, True) (4x in time), attn_scales [] (attention only in the mid
blocks), dropout 0, the published latents_mean / latents_std (config only, used by the pipelines).
Input: a video in [-1, 1] (batch, 3, 5 frames, 32, 32) (1 + 4 frames: 2 latent frames of 4 x 4).
Output: the reconstruction `.sample` (batch, 3, 5, 32, 32), decoded from the posterior mode
(forward with sample_posterior=False), so it is deterministic.
"""
import torch
from torch import nn
from diffusers import AutoencoderKLWan

batch_size = 2
num_frames = 5
image_size = 32


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderKLWan(**config)

    def forward(self, video):
        return self.model(video, sample_posterior=False).sample


def get_inputs():
    return [torch.rand(batch_size, 3, num_frames, image_size, image_size) * 2 - 1]


def get_init_inputs():
    return [dict(
        base_dim=32,  # published 96
        z_dim=16,
        dim_mult=[1, 2, 4, 4],
        num_res_blocks=1,  # published 2
        attn_scales=[],
        temperal_downsample=[False, True, True],
        dropout=0.0,
        latents_mean=[
            -0.7571, -0.7089, -0.9113, 0.1075, -0.1745, 0.9653, -0.1517, 1.5508,
            0.4134, -0.0715, 0.5517, -0.3632, -0.1922, -0.9497, 0.2503, -0.2921,
        ],
        latents_std=[
            2.8184, 1.4541, 2.3275, 2.6558, 1.2196, 1.7708, 2.6052, 2.0743,
            3.2687, 2.1526, 2.8652, 1.5579, 1.6382, 1.1253, 2.8251, 1.9160,
        ],
    )]
