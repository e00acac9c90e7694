"""diffusers `CogVideoXTransformer3DModel`: the CogVideoX text-to-video expert transformer (latent frames patchified
2 x 2 per frame and concatenated after the projected T5 text tokens, plus a fixed 3D sin-cos position embedding on the
video tokens; blocks of full 3D self-attention over the joint text + video sequence with QK LayerNorm, and a
GELU(tanh) MLP, each preceded by an "expert" adaptive LayerNorm that modulates text and video tokens with separate
scale / shift / gate from the timestep embedding; final LayerNorm + AdaLayerNorm, unpatchify).

Architecture after THUDM/CogVideoX-2b `transformer/config.json` (sin-cos position embedding,
use_rotary_positional_embeddings false: the 3D RoPE is the 5B model's), shrunk: 30 heads x 64 dims (1920 hidden) ->
2 heads x 64 dims (128 hidden), 30 layers -> 2, time_embed_dim 512 -> 64, text_embed_dim 4096 (T5-v1.1-XXL) -> 64,
max_text_seq_length 226 -> 8, latents 13 frames x 60 x 90 -> 3 frames x 12 x 18 (same 2:3 aspect; sample_frames
49 -> 9 video frames, (9 - 1) / 4 + 1 = 3 latent frames; patch 2 kept: 3 x 6 x 9 = 162 video tokens + 8 text tokens
instead of 13 x 30 x 45 + 226).
Inputs: noisy video latents (batch, frames, 16, 12, 18) (frames before channels, as the pipeline passes them),
text-encoder hidden states (batch, 8, 64) (the T5 prompt padded to max_text_seq_length; CogVideoX takes no text
attention mask, the pad tokens' embeddings are attended to), timestep (batch,).
Output: `.sample` (batch, frames, 16, 12, 18): predicted v (v-prediction).
"""
import torch
from diffusers import CogVideoXTransformer3DModel
from torch import nn

batch_size = 2
num_frames = 3  # latent frames; published 13 (49 video frames)
latent_height = 12  # published 60 (480 px)
latent_width = 18  # published 90 (720 px)
seq_len = 8  # T5 tokens = max_text_seq_length; published 226
text_embed_dim = 64  # published 4096 (T5-v1.1-XXL)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CogVideoXTransformer3DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep):
        return self.model(
            hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            timestep=timestep,
            image_rotary_emb=None,  # CogVideoX-2b: no RoPE
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, num_frames, 16, latent_height, latent_width)
    encoder_hidden_states = torch.randn(batch_size, seq_len, text_embed_dim)
    timestep = torch.randint(0, 1000, (batch_size,))
    return [hidden_states, encoder_hidden_states, timestep]


def get_init_inputs():
    # Kept from CogVideoX-2b: in/out channels 16, patch_size 2 (no temporal patching), temporal_compression_ratio 4,
    # flip_sin_to_cos, freq_shift 0, gelu-approximate MLP, silu timestep activation, attention bias, elementwise
    # affine LayerNorms with eps 1e-5, no dropout, spatial / temporal interpolation scales 1.875 / 1.0, fixed
    # sin-cos (not learned) position embedding, no RoPE, patch bias.
    return [dict(
        num_attention_heads=2,  # published 30
        attention_head_dim=64,
        in_channels=16,
        out_channels=16,
        flip_sin_to_cos=True,
        freq_shift=0,
        time_embed_dim=64,  # published 512
        text_embed_dim=text_embed_dim,  # published 4096
        num_layers=2,  # published 30
        dropout=0.0,
        attention_bias=True,
        sample_width=latent_width,  # published 90
        sample_height=latent_height,  # published 60
        sample_frames=(num_frames - 1) * 4 + 1,  # published 49
        patch_size=2,
        temporal_compression_ratio=4,
        max_text_seq_length=seq_len,  # published 226
        activation_fn="gelu-approximate",
        timestep_activation_fn="silu",
        norm_elementwise_affine=True,
        norm_eps=1e-5,
        spatial_interpolation_scale=1.875,
        temporal_interpolation_scale=1.0,
        use_rotary_positional_embeddings=False,
        use_learned_positional_embeddings=False,
    )]
