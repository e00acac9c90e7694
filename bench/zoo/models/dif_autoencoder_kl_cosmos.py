"""diffusers `AutoencoderKLCosmos`: the NVIDIA Cosmos continuous video tokenizer (Cosmos World Foundation Model
Platform, 2025; the CV8x8x8 tokenizer used by Cosmos-1.0 Diffusion), 8x temporal and 8x spatial compression to 16
latent channels, a deterministic autoencoder (the "posterior" is an identity distribution). The encoder starts
with a two-level 3D Haar wavelet transform instead of a patch conv: the first frame is repeated patch_size times
(causal padding), then each level applies the Haar low / high-pass pair along time, height and width as grouped
strided conv3d's with reflect padding (8 sub-bands, rescaled by 1 / sqrt 8), so a (3, T, H, W) video becomes
(192, T / 4, H / 4, W / 4) before any learned layer. Learned layers are factorised causal 3D convs (a 1 x 3 x 3
spatial conv then a 3 x 1 x 1 temporal conv, the time axis padded by repeating the first frame), per-frame
GroupNorm(1) + SiLU residual blocks, downsampling as strided conv + average pooling summed (spatial, then temporal
with the first frame duplicated), and a mid block alternating per-frame spatial attention over H x W and causal
temporal attention over frames (a lower-triangular mask) at every pixel, with 1 x 1 x 1 causal convs as q / k / v
projections. The decoder mirrors it: nearest-neighbour repeat_interleave upsampling in time (dropping the duplicated
first frame) and space, each followed by a residual causal conv, then the inverse Haar transform as grouped
conv_transpose3d's, dropping the patch_size - 1 padded frames.

The forward is encode -> mode -> decode (forward with sample_posterior=False; the distribution is an identity, so
mode() is the encoder output): the reconstruction `.sample`.
Shrunk (from the class defaults, the Cosmos-1.0-Tokenizer-CV8x8x8 layout): encoder channels (128, 256, 512, 512)
-> (32, 64, 128, 128), decoder channels (256, 512, 512, 512) -> (64, 128, 128, 128), video 121 frames x 704 x 1280
(Cosmos-1.0 Diffusion) -> 9 frames x 32 x 32 (latents 2 x 4 x 4).
Kept: patch_size 4 with Haar wavelets, spatial / temporal compression 8, 16 latent channels, num_layers 2 resnet
blocks per encoder block (3 per decoder block), resolution 1024 and attention_resolutions (32,) (so, as published,
only the mid blocks attend), GroupNorm with one group, the CV8x8x8 latents_mean / latents_std (config only).
Input: a video in [-1, 1] (2, 3, 9, 32, 32) (1 + 8k frames). Output: the reconstruction (2, 3, 9, 32, 32).
"""
import torch
from diffusers import AutoencoderKLCosmos
from torch import nn

batch_size = 2
num_frames = 9  # 1 + 8k; Cosmos-1.0 Diffusion generates 121
image_size = 32  # published 704 x 1280


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderKLCosmos(**config)

    def forward(self, video):
        return self.model(video, sample_posterior=False).sample


def get_inputs():
    return [torch.rand(batch_size, 3, num_frames, image_size, image_size) * 2 - 1]


def get_init_inputs():
    # AutoencoderKLCosmos defaults (the CV8x8x8-1.0 tokenizer, as the class documents them). Kept: latent_channels
    # 16, patch_size 4, patch_type haar, num_layers 2, resolution 1024, attention_resolutions (32,),
    # spatial / temporal compression 8, scaling_factor 1.0, the default latents_mean / latents_std.
    return [dict(
        in_channels=3,
        out_channels=3,
        latent_channels=16,
        encoder_block_out_channels=(32, 64, 128, 128),  # published (128, 256, 512, 512)
        decode_block_out_channels=(64, 128, 128, 128),  # published (256, 512, 512, 512)
        attention_resolutions=(32,),
        resolution=1024,
        num_layers=2,
        patch_size=4,
        patch_type="haar",
        scaling_factor=1.0,
        spatial_compression_ratio=8,
        temporal_compression_ratio=8,
    )]
