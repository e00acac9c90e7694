"""diffusers `AutoencoderTiny` (TAESD): a tiny distilled Stable Diffusion VAE. The encoder is a plain conv stack
(stride-2 convs + residual ReLU blocks, no normalization, no attention) straight to 4 latent channels, no posterior;
the decoder soft-clamps the latents (tanh(x / 3) * 3) and upsamples by nearest-neighbour x2 between residual blocks.

Architecture after madebyollin/taesd `config.json`, shrunk: encoder/decoder_block_out_channels (64, 64, 64, 64) ->
(32, 32, 32, 32), num_encoder_blocks (1, 3, 3, 3) -> (1, 2, 2, 2), num_decoder_blocks (3, 3, 3, 1) -> (2, 2, 2, 1),
64 x 64 images instead of 512 x 512 (still 8x downsampling to 8 x 8 latents).
Encode then decode, as a pipeline calls them (`vae.encode(x).latents`, `vae.decode(latents).sample`); the library
forward's uint8 round trip of the latents (a storage emulation) is left out.
Input: images (2, 3, 64, 64) in [-1, 1].
Output: (latents (2, 4, 8, 8), reconstruction (2, 3, 64, 64)).
"""
import torch
from torch import nn
from diffusers import AutoencoderTiny

batch_size = 2
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderTiny(**config)

    def forward(self, x):
        latents = self.model.encode(x).latents
        return latents, self.model.decode(latents).sample


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size) * 2 - 1]


def get_init_inputs():
    # Kept from taesd: in/out channels 3, latent_channels 4, relu, nearest upsampling with factor 2,
    # latent_magnitude 3, latent_shift 0.5, scaling_factor 1.0, 4 levels (3 downsamples, 8x).
    # Shrunk: block channels 32 (was 64), encoder blocks per level (1, 2, 2, 2) (was (1, 3, 3, 3)),
    # decoder blocks per level (2, 2, 2, 1) (was (3, 3, 3, 1)).
    return [dict(
        in_channels=3,
        out_channels=3,
        encoder_block_out_channels=(32, 32, 32, 32),
        decoder_block_out_channels=(32, 32, 32, 32),
        act_fn="relu",
        upsample_fn="nearest",
        latent_channels=4,
        upsampling_scaling_factor=2,
        num_encoder_blocks=(1, 2, 2, 2),
        num_decoder_blocks=(2, 2, 2, 1),
        latent_magnitude=3,
        latent_shift=0.5,
        scaling_factor=1.0,
    )]
