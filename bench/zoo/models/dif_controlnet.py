"""diffusers `ControlNetModel`: a trainable copy of the Stable Diffusion UNet encoder (down blocks + mid block) that
takes the noisy latents plus a conditioning image (e.g. Canny edges) embedded by a small strided conv stack, and
emits zero-conv residuals for every UNet skip connection and for the mid block.

Architecture after lllyasviel/sd-controlnet-canny `config.json` (SD v1.5 ControlNet), shrunk: 2 down levels instead
of 4 (block_out_channels (32, 64) instead of (320, 640, 1280, 1280)), cross_attention_dim 64 instead of 768,
conditioning_embedding_out_channels (16, 32, 96, 256) -> (16, 16, 32, 32) (still 3 stride-2 convs, 8x),
16 x 16 latents / 128 x 128 conditioning image instead of 64 x 64 / 512 x 512.
Inputs: noisy latents (2, 4, 16, 16), timestep (2,), text-encoder hidden states (2, 8, 64), conditioning image
(2, 3, 128, 128) in [0, 1].
Output: tuple of the 6 down-block residuals (2, 32, 16, 16) x 3, (2, 32, 8, 8), (2, 64, 8, 8) x 2, then the
mid-block residual (2, 64, 8, 8). The zero convolutions are re-initialized at random (see Model.__init__), so
the residuals are not all zero as in an untrained ControlNet.
"""
import torch
from torch import nn
from diffusers import ControlNetModel

batch_size = 2
latent_size = 16
image_size = 8 * latent_size
text_len = 8
cross_attention_dim = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ControlNetModel(**config)
        # ControlNet zero-initializes its "zero convolutions" (the conditioning embedding's conv_out, every
        # controlnet_down_block and the controlnet_mid_block), so a freshly built model returns all-zero residuals
        # whatever its inputs. Stand in for trained weights: give them PyTorch's default conv init instead.
        for conv in (self.model.controlnet_cond_embedding.conv_out, *self.model.controlnet_down_blocks,
                     self.model.controlnet_mid_block):
            conv.reset_parameters()

    def forward(self, sample, timestep, encoder_hidden_states, controlnet_cond):
        out = self.model(sample, timestep, encoder_hidden_states=encoder_hidden_states,
                         controlnet_cond=controlnet_cond, conditioning_scale=1.0)
        return (*out.down_block_res_samples, out.mid_block_res_sample)


def get_inputs():
    sample = torch.randn(batch_size, 4, latent_size, latent_size)
    timestep = torch.randint(0, 1000, (batch_size,))
    encoder_hidden_states = torch.randn(batch_size, text_len, cross_attention_dim)
    controlnet_cond = (torch.rand(batch_size, 3, image_size, image_size) > 0.9).float()  # sparse edge map
    return [sample, timestep, encoder_hidden_states, controlnet_cond]


def get_init_inputs():
    # Kept from sd-controlnet-canny: in_channels 4, conditioning_channels 3 (rgb order), layers_per_block 2,
    # attention_head_dim 8, norm_num_groups 32, norm_eps 1e-5, silu, flip_sin_to_cos, freq_shift 0,
    # downsample_padding 1, UNetMidBlock2DCrossAttn, cross-attention on all but the lowest level.
    # Shrunk: 2 levels (was 4), block_out_channels (32, 64) (was (320, 640, 1280, 1280)), cross_attention_dim 64
    # (was 768), conditioning_embedding_out_channels (16, 16, 32, 32) (was (16, 32, 96, 256)).
    return [dict(
        in_channels=4,
        conditioning_channels=3,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        mid_block_type="UNetMidBlock2DCrossAttn",
        block_out_channels=(32, 64),
        layers_per_block=2,
        attention_head_dim=8,
        cross_attention_dim=cross_attention_dim,
        norm_num_groups=32,
        norm_eps=1e-5,
        act_fn="silu",
        flip_sin_to_cos=True,
        freq_shift=0,
        downsample_padding=1,
        controlnet_conditioning_channel_order="rgb",
        conditioning_embedding_out_channels=(16, 16, 32, 32),
    )]
