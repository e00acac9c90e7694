"""diffusers `UNet1DModel` in its Dance Diffusion form: a 1-D waveform U-Net for audio diffusion (Gaussian Fourier
features of the continuous timestep broadcast over time and concatenated to the input as extra channels; levels
of three residual conv blocks (kernel 5, single-group GroupNorm, GELU) with fixed cubic-kernel down/upsampling;
self-attention with channels / 32 heads (2 here, 16 published) after every residual block in the deepest levels
and in the mid block; skip connections by concatenation; the first and last level without resampling / skip).

Architecture after harmonai/maestro-150k `unet/config.json` (DanceDiffusionPipeline, stereo 16 kHz audio):
in/out channels 2, extra_in_channels 16 (8 Fourier frequencies, cos and sin: `time_embedding_dim=16`, which
diffusers >= 0.36 needs stated to keep the published width), flip_sin_to_cos, fourier time embedding without a
time MLP, mid block "UNetMidBlock1D". Shrunk: 13 levels with block_out_channels (128, 128, 256, 256, 512 x 9)
-> 4 levels (32, 32, 64, 64) (block kinds kept: "DownBlock1DNoSkip" first, then "DownBlock1D", then
"AttnDownBlock1D"; mirrored on the way up), 65536 samples -> 64 (64 -> 32 -> 16 -> 8, mid block 4).
Inputs: noisy stereo audio (batch, 2, 64) and one diffusion time t in [0, 1) per sample (batch,) (the IPNDM
scheduler's continuous timesteps). Output: `.sample` (batch, 2, 64), the denoiser's prediction.
"""
import torch
from torch import nn
from diffusers import UNet1DModel

batch_size = 2
num_samples = 64  # audio samples per channel; published sample_size 65536


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UNet1DModel(**config)

    def forward(self, sample, timestep):
        return self.model(sample, timestep).sample


def get_inputs():
    sample = torch.randn(batch_size, 2, num_samples)
    timestep = torch.rand(batch_size)  # continuous t in [0, 1), as IPNDMScheduler produces
    return [sample, timestep]


def get_init_inputs():
    # Kept from harmonai/maestro-150k: in/out channels 2, extra_in_channels 16, fourier time embedding of width 16
    # (time_embedding_dim 16: the checkpoint's time_proj.weight has 8 frequencies), flip_sin_to_cos, freq_shift 0,
    # use_timestep_embedding False, mid block UNetMidBlock1D, no out block, sample_rate 16000.
    # Shrunk: 13 levels -> 4, block_out_channels (128, 128, 256, 256, 512 x 9) -> (32, 32, 64, 64),
    # sample_size 65536 -> 64.
    return [dict(
        sample_size=num_samples,  # published 65536
        sample_rate=16000,
        in_channels=2,
        out_channels=2,
        extra_in_channels=16,
        time_embedding_type="fourier",
        time_embedding_dim=16,
        flip_sin_to_cos=True,
        use_timestep_embedding=False,
        freq_shift=0.0,
        down_block_types=("DownBlock1DNoSkip", "DownBlock1D", "AttnDownBlock1D", "AttnDownBlock1D"),
        up_block_types=("AttnUpBlock1D", "AttnUpBlock1D", "UpBlock1D", "UpBlock1DNoSkip"),
        mid_block_type="UNetMidBlock1D",
        out_block_type=None,
        block_out_channels=(32, 32, 64, 64),  # published (128, 128, 256, 256, 512, 512, ..., 512): 13 levels
        act_fn=None,
    )]
