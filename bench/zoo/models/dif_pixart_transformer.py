"""diffusers `PixArtTransformer2DModel`: the PixArt-alpha text-to-image Diffusion Transformer (patchify latents,
transformer blocks with self-attention, cross-attention to T5 text embeddings and a GELU MLP, all modulated by
adaLN-single: one timestep MLP shared by every block, each block adding its own learned scale-shift table;
caption projection from the text encoder's width; unpatchify to noise and learned-variance channels).

Architecture after PixArt-alpha/PixArt-XL-2-512x512 `transformer/config.json` (sample_size 64, so no
resolution / aspect-ratio micro-conditions: `use_additional_conditions` False, the pipeline passes
`added_cond_kwargs={"resolution": None, "aspect_ratio": None}`), shrunk: 16 heads x 72 dims (1152 hidden) ->
4 heads x 32 dims (128 hidden), cross_attention_dim 1152 -> 128 (= hidden, as published), 28 layers -> 2,
caption_channels 4096 (T5-XXL) -> 64, 64 x 64 latents -> 16 x 16 (patch 2 kept: 64 tokens instead of 1024),
120 text tokens -> 8.
Inputs: noisy latents (batch, 4, 16, 16), text-encoder hidden states (batch, 8, 64), timestep (batch,), and the
T5 prompt attention mask (batch, 8) with the second prompt shorter (its last 3 tokens are padding).
Output: `.sample` (batch, 8, 16, 16): predicted noise and variance (out_channels 8 as published).
"""
import torch
from torch import nn
from diffusers import PixArtTransformer2DModel

batch_size = 2
latent_size = 16
seq_len = 8  # text tokens; published max 120
caption_channels = 64  # text-encoder width; published 4096 (T5-v1.1-XXL)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PixArtTransformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep, encoder_attention_mask):
        return self.model(
            hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            timestep=timestep,
            added_cond_kwargs={"resolution": None, "aspect_ratio": None},
            encoder_attention_mask=encoder_attention_mask,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, 4, latent_size, latent_size)
    encoder_hidden_states = torch.randn(batch_size, seq_len, caption_channels)
    timestep = torch.randint(0, 1000, (batch_size,))
    encoder_attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    encoder_attention_mask[1, -3:] = 0  # the second prompt is 3 tokens shorter
    return [hidden_states, encoder_hidden_states, timestep, encoder_attention_mask]


def get_init_inputs():
    # Kept from PixArt-XL-2-512x512: in_channels 4, out_channels 8, patch_size 2, norm_type "ada_norm_single",
    # num_embeds_ada_norm 1000, gelu-approximate, attention bias, no elementwise affine in the norms, norm_eps 1e-6,
    # norm_num_groups 32, no dropout, default attention, no additional (resolution / aspect-ratio) conditions,
    # interpolation_scale null (-> max(sample_size // 64, 1) = 1, as published).
    return [dict(
        num_attention_heads=4,  # published 16
        attention_head_dim=32,  # published 72
        in_channels=4,
        out_channels=8,
        num_layers=2,  # published 28
        dropout=0.0,
        norm_num_groups=32,
        cross_attention_dim=128,  # published 1152 (= num_attention_heads * attention_head_dim)
        attention_bias=True,
        sample_size=latent_size,  # published 64
        patch_size=2,
        activation_fn="gelu-approximate",
        num_embeds_ada_norm=1000,
        upcast_attention=False,
        norm_type="ada_norm_single",
        norm_elementwise_affine=False,
        norm_eps=1e-6,
        interpolation_scale=None,
        use_additional_conditions=False,
        caption_channels=caption_channels,  # published 4096
        attention_type="default",
    )]
