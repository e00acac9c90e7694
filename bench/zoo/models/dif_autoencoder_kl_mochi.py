"""diffusers `AutoencoderKLMochi`: the Mochi 1 asymmetric causal video VAE (8x spatial, 6x temporal compression,
12 latent channels). The encoder lifts each RGB pixel with NeRF-style Fourier features (sin / cos at 2 frequencies
per channel: 3 -> 15 channels) and a linear projection, then: an input stage of residual blocks, three downsampling
stages (a causal strided patch conv of kernel = stride (1, 2, 2), (2, 2, 2), (3, 2, 2), then residual blocks each
followed by a causal self-attention across the frames of each pixel with L2-normalised queries / keys), an output
stage of residual blocks + temporal attention, GroupNorm, SiLU and a linear projection to the Gaussian moments.
Residual blocks are (per-frame GroupNorm, SiLU, causal 3 x 3 x 3 conv with replicate padding) x 2. The decoder is
wider and attention-free: 1 x 1 x 1 conv in, residual blocks, three upsampling stages that expand channels with a
linear layer and depth-to-space it into (3, 2, 2), (2, 2, 2), (1, 2, 2) time / height / width factors, residual
blocks, SiLU and a linear projection to RGB; the first 5 decoded frames are dropped (the first latent frame stands
for a single video frame), so 1 + 6k frames round-trip.

Architecture after genmo/mochi-1-preview `vae/config.json`, shrunk: encoder_block_out_channels (64, 128, 256, 384)
-> (32, 64, 128, 192), decoder_block_out_channels (128, 256, 512, 768) -> (32, 64, 128, 192), layers_per_block
(3, 3, 4, 6, 3) -> (1, 1, 1, 1, 1), video 19 frames (MochiPipeline default) x 480 x 848 -> 7 frames x 32 x 32
(2 latent frames of 4 x 4).
Kept: in_channels 15 (the Fourier-featured RGB), latent_channels 12, temporal_expansions (1, 2, 3),
spatial_expansions (2, 2, 2), add_attention_block (False, True, True, True, True) (heads = channels / 32, head dim
32), silu, scaling_factor 1.0 and the published latents_mean / latents_std (config only, used by the pipelines).
Input: a video in [-1, 1] (batch, 3, 7 frames, 32, 32).
Output: the reconstruction `.sample` (batch, 3, 7, 32, 32), decoded from the posterior mean (forward with
sample_posterior=False), so it is deterministic.
"""
import torch
from torch import nn
from diffusers import AutoencoderKLMochi

batch_size = 2
num_frames = 7  # 1 + 6k frames; pipeline default 19
image_size = 32  # pipeline default 480 x 848


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderKLMochi(**config)

    def forward(self, video):
        return self.model(video, sample_posterior=False).sample


def get_inputs():
    return [torch.rand(batch_size, 3, num_frames, image_size, image_size) * 2 - 1]


def get_init_inputs():
    return [dict(
        in_channels=15,
        out_channels=3,
        encoder_block_out_channels=(32, 64, 128, 192),  # published (64, 128, 256, 384)
        decoder_block_out_channels=(32, 64, 128, 192),  # published (128, 256, 512, 768)
        latent_channels=12,
        layers_per_block=(1, 1, 1, 1, 1),  # published (3, 3, 4, 6, 3)
        act_fn="silu",
        temporal_expansions=(1, 2, 3),
        spatial_expansions=(2, 2, 2),
        add_attention_block=(False, True, True, True, True),
        latents_mean=(
            -0.06730895953510081, -0.038011381506090416, -0.07477820912866141, -0.05565264470995561,
            0.012767231469026969, -0.04703542746246419, 0.043896967884726704, -0.09346305707025976,
            -0.09918314763016893, -0.008729793427399178, -0.011931556316503654, -0.0321993391887285,
        ),
        latents_std=(
            0.9263795028493863, 0.9248894543193766, 0.9393059390890617, 0.959253732819592,
            0.8244560132752793, 0.917259975397747, 0.9294154431013696, 1.3720942357788521,
            0.881393668867029, 0.9168315692124348, 0.9185249279345552, 0.9274757570805041,
        ),
        scaling_factor=1.0,
    )]
