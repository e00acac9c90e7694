"""diffusers `AutoencoderKLTemporalDecoder`: the video VAE of Stable Video Diffusion
(`stabilityai/stable-video-diffusion-img2vid`, subfolder vae), shrunk. Frames are ENCODED independently by the
ordinary SD image encoder but DECODED jointly by a temporal decoder:
  - Encoder: the 2-D KL encoder (conv_in, DownEncoderBlock2D stages of GroupNorm-SiLU-conv ResNets with stride-2
    downsampling, a mid block with single-head spatial self-attention, GroupNorm-SiLU-conv_out to 2 x latent
    channels), quant_conv 1 x 1; the posterior's mode (its mean) is decoded (sample_posterior False).
  - Temporal decoder: every ResNet is a SpatioTemporalResBlock: a 2-D ResNet on each frame, then a temporal ResNet
    (GroupNorm-SiLU-Conv3d with kernel (3, 1, 1) over time, twice) on the (batch, channels, frames, h, w) view, and
    the two are blended as alpha x temporal + (1 - alpha) x spatial with a learned alpha = sigmoid(mix_factor)
    ("learned" merge with the spatial / temporal roles switched). The mid block has spatial attention (head dim =
    width, so one head) between its ResNets; up blocks use nearest x2 + conv. After conv_out a final Conv3d with
    kernel (3, 1, 1) mixes the RGB output across neighbouring frames (time_conv_out).

Shrunk (from the SVD VAE config): block_out_channels (128, 256, 512, 512) -> (32, 32, 64, 64) (GroupNorm keeps 32
groups, so 32 is the floor), images 576 x 1024 -> 64 x 64, 14 / 25 frames -> 4. Kept: 4 stages (8x down / up),
layers_per_block 2, latent channels 4, scaling factor 0.18215 (not applied by forward).
Input: sample (8, 3, 64, 64) = 2 clips x 4 frames, frame-major per clip. Output: reconstruction (8, 3, 64, 64).
"""
import torch
from diffusers import AutoencoderKLTemporalDecoder
from torch import nn

batch_size = 2
num_frames = 4
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderKLTemporalDecoder(**config)

    def forward(self, sample):
        return self.model(sample, num_frames=num_frames).sample


def get_inputs():
    return [torch.randn(batch_size * num_frames, 3, image_size, image_size)]


def get_init_inputs():
    # stabilityai/stable-video-diffusion-img2vid vae/config.json, shrunk where commented.
    return [dict(
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D",) * 4,
        block_out_channels=(32, 32, 64, 64),  # published (128, 256, 512, 512)
        layers_per_block=2,
        latent_channels=4,
        sample_size=image_size,  # published 768
        scaling_factor=0.18215,
    )]
