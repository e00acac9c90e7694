"""diffusers `AutoencoderKLLTXVideo` in the LTX-Video 0.9.5 layout (`Lightricks/LTX-Video-0.9.5`'s VAE): a causal 3D
video VAE with 32 x spatial and 8 x temporal compression, run as encode -> posterior mode -> timestep-conditioned
decode. The encoder first space-to-depth patchifies 4 x 4 pixels into 48 channels (a reshape-permute in LTX's
own channel order), then causal 3D convs (the time axis padded by repeating the first frame, never zeros) and 3D
ResNet blocks (RMSNorm over channels with no weight, SiLU) in four down blocks whose downsamplers are,
respectively, spatial (1, 2, 2), temporal (2, 1, 1) and two spatio-temporal (2, 2, 2) space-to-depth steps: a conv
whose output is folded into channels plus a residual of the folded input averaged over channel groups (the first
frame is duplicated first so the frame count stays 1 + 8k). A mid block, RMSNorm, SiLU and a conv give the
mean and one shared log-variance channel, repeated to all latent channels. The decoder (non-causal: time padded
at both ends by edge repetition) is conditioned on the decode timestep (x the learned multiplier 1000): a
PixArt-alpha timestep embedding per up block and at the output gives shift / scale pairs added to learned tables
and applied after each ResNet norm; each up block depth-to-space upsamples by (2, 2, 2) with a conv (channels /
upsample_factor 2) plus a residual of the input unfolded the same way and repeated along channels, dropping the
first frame; the final conv is unpatchified back to pixels (4 x 4).

Shrunk: block_out_channels (128, 256, 512, 1024, 2048) -> (8, 16, 32, 64, 128), decoder_block_out_channels (256,
512, 1024) -> (32, 64, 128), layers_per_block (4, 6, 6, 2, 2) -> (1, 1, 1, 1, 1), decoder_layers_per_block (5, 5,
5, 5) -> (1, 1, 1, 1), latent_channels 128 -> 16; video 9 frames of 64 x 64 (latent 2 x 2 x 2).
Kept: down block types (LTXVideo095DownBlock3D x 4) with downsample types (spatial, temporal, spatiotemporal,
spatiotemporal), all four scaling, decoder scaling (True, True, True), upsample_residual True and upsample_factor 2,
timestep_conditioning, patch 4 / patch_t 1, causal encoder / non-causal decoder, eps 1e-6, no decoder noise
injection (as published for 0.9.5; it would draw random noise in the forward).
Inputs: video (2, 3, 9, 64, 64) in [-1, 1]; decode timestep temb (2,) = 0.05 (the pipeline's decode_timestep).
Output: the reconstructed video (2, 3, 9, 64, 64).
"""
import torch
from diffusers import AutoencoderKLLTXVideo
from torch import nn

batch_size = 2
num_frames = 9
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderKLLTXVideo(**config)

    def forward(self, sample, temb):
        return self.model(sample, temb=temb, sample_posterior=False, return_dict=False)[0]


def get_inputs():
    sample = torch.rand(batch_size, 3, num_frames, image_size, image_size) * 2 - 1
    temb = torch.full((batch_size,), 0.05)
    return [sample, temb]


def get_init_inputs():
    return [dict(
        in_channels=3,
        out_channels=3,
        latent_channels=16,  # published 128
        block_out_channels=(8, 16, 32, 64, 128),  # published (128, 256, 512, 1024, 2048)
        down_block_types=("LTXVideo095DownBlock3D",) * 4,
        decoder_block_out_channels=(32, 64, 128),  # published (256, 512, 1024)
        layers_per_block=(1, 1, 1, 1, 1),  # published (4, 6, 6, 2, 2)
        decoder_layers_per_block=(1, 1, 1, 1),  # published (5, 5, 5, 5)
        spatio_temporal_scaling=(True, True, True, True),
        decoder_spatio_temporal_scaling=(True, True, True),
        decoder_inject_noise=(False, False, False, False),
        downsample_type=("spatial", "temporal", "spatiotemporal", "spatiotemporal"),
        upsample_residual=(True, True, True),
        upsample_factor=(2, 2, 2),
        timestep_conditioning=True,
        patch_size=4,
        patch_size_t=1,
        resnet_norm_eps=1e-6,
        scaling_factor=1.0,
        encoder_causal=True,
        decoder_causal=False,
        spatial_compression_ratio=32,
        temporal_compression_ratio=8,
    )]
