"""diffusers `SD3Transformer2DModel`: the Stable Diffusion 3 MMDiT (joint image/text attention blocks, AdaLN from
timestep + pooled text embedding, patchified latents with cropped 2D sin-cos position embedding).

Architecture after stabilityai/stable-diffusion-3-medium `transformer/config.json`, shrunk: 2 layers instead of 24,
4 heads of dim 16 (inner dim 64) instead of 24 x 64, joint_attention_dim / pooled_projection_dim 64 instead of
4096 / 2048, 16 x 16 latents instead of 128 x 128. Inputs: latents (batch, 16, 16, 16), text hidden states
(batch, 8, 64), pooled text embedding (batch, 64), timestep (batch,). Output: `.sample` (batch, 16, 16, 16).
"""
import torch
from torch import nn
from diffusers import SD3Transformer2DModel

batch_size = 2
latent_size = 16
text_len = 8
joint_attention_dim = 64
pooled_projection_dim = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SD3Transformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, pooled_projections, timestep):
        return self.model(
            hidden_states=hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            pooled_projections=pooled_projections,
            timestep=timestep,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, 16, latent_size, latent_size)
    encoder_hidden_states = torch.randn(batch_size, text_len, joint_attention_dim)
    pooled_projections = torch.randn(batch_size, pooled_projection_dim)
    timestep = torch.randint(0, 1000, (batch_size,))
    return [hidden_states, encoder_hidden_states, pooled_projections, timestep]


def get_init_inputs():
    # Kept from SD3-medium: patch_size 2, in/out channels 16, no dual-attention layers, no qk_norm.
    # Shrunk: num_layers 2 (was 24), num_attention_heads 4 x attention_head_dim 16 (was 24 x 64),
    # caption_projection_dim 64 (= inner dim, was 1536), joint_attention_dim 64 (was 4096),
    # pooled_projection_dim 64 (was 2048), sample_size 16 (was 128), pos_embed_max_size 32 (was 192).
    return [dict(
        sample_size=latent_size,
        patch_size=2,
        in_channels=16,
        out_channels=16,
        num_layers=2,
        attention_head_dim=16,
        num_attention_heads=4,
        joint_attention_dim=joint_attention_dim,
        caption_projection_dim=64,
        pooled_projection_dim=pooled_projection_dim,
        pos_embed_max_size=32,
    )]
