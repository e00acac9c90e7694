"""diffusers `LatteTransformer3DModel`: the Latte text-to-video latent diffusion transformer. Every video frame is
patchified 2 x 2 on its own (2D patch embedding with a fixed 2D sin-cos position embedding), then the blocks
alternate: a spatial PixArt-alpha block over the tokens of one frame (self-attention, cross-attention to the
projected T5 caption, GELU(tanh) MLP), then a temporal block over the frames of one patch position (self-attention
across time only, no cross-attention; a fixed 1D sin-cos temporal position embedding is added before the first
one). Both kinds are modulated adaLN-single style: one timestep embedding (AdaLayerNormSingle) gives a shared
6-way shift / scale / gate, plus a learned per-block scale_shift_table; final LayerNorm + shift / scale modulation,
linear projection and unpatchify per frame.

Architecture after maxin-cn/Latte-1 `transformer/config.json` (PixArt-alpha-based), shrunk: 16 heads x 72 dims
(1152 hidden) -> 2 heads x 64 dims (128 hidden), 28 spatial + 28 temporal layers -> 2 + 2, cross_attention_dim
1152 -> 128 (= hidden), caption_channels 4096 (T5-v1.1-XXL) -> 64, sample_size 64 -> 16 (patch 2 kept: 64 tokens
per frame instead of 1024), video_length 16 -> 4 frames, T5 caption length 120 -> 8 tokens.
Inputs: noisy video latents (batch, 4, 4 frames, 16, 16) (channels before frames), T5 caption embeddings
(batch, 8, 64) (LattePipeline passes no text mask: it cuts the prompt to its non-pad tokens instead), timestep
(batch,).
Output: `.sample` (batch, 8, 4, 16, 16): predicted noise and learned variance (out_channels 8 as published).
"""
import torch
from torch import nn
from diffusers import LatteTransformer3DModel

batch_size = 2
num_frames = 4  # = video_length; published 16
latent_size = 16  # published 64 (512 px)
seq_len = 8  # T5 tokens; published max 120
caption_channels = 64  # published 4096 (T5-v1.1-XXL)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LatteTransformer3DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep):
        return self.model(
            hidden_states,
            timestep=timestep,
            encoder_hidden_states=encoder_hidden_states,
            enable_temporal_attentions=True,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, 4, num_frames, latent_size, latent_size)
    encoder_hidden_states = torch.randn(batch_size, seq_len, caption_channels)
    timestep = torch.randint(0, 1000, (batch_size,))
    return [hidden_states, encoder_hidden_states, timestep]


def get_init_inputs():
    # Kept from Latte-1: in_channels 4, out_channels 8 (noise + variance), patch_size 2, norm_type "ada_norm_single",
    # num_embeds_ada_norm 1000, gelu-approximate MLP, attention bias, LayerNorms without elementwise affine,
    # norm_eps 1e-6, no dropout.
    return [dict(
        num_attention_heads=2,  # published 16
        attention_head_dim=64,  # published 72
        in_channels=4,
        out_channels=8,
        num_layers=2,  # published 28 (each layer = one spatial + one temporal block)
        dropout=0.0,
        cross_attention_dim=128,  # published 1152 (= hidden size)
        attention_bias=True,
        sample_size=latent_size,  # published 64
        patch_size=2,
        activation_fn="gelu-approximate",
        num_embeds_ada_norm=1000,
        norm_type="ada_norm_single",
        norm_elementwise_affine=False,
        norm_eps=1e-6,
        caption_channels=caption_channels,  # published 4096
        video_length=num_frames,  # published 16
    )]
