"""diffusers `LTXVideoTransformer3DModel`: the LTX-Video text-to-video transformer (the 128-channel video latents,
patchified 1 x 1 x 1 by the pipeline into one token per latent voxel, are linearly projected; blocks of RMS-normed
self-attention with RMSNorm across heads on Q / K and a 3-D rotary embedding over (frame, row, column) token
coordinates (frame index * 8 / 25 fps / 20 base frames, row / column index * 32 px / 2048 base px, one third of the
rotary frequencies per axis across the whole hidden width, the leftover channels padded with identity),
cross-attention to the projected T5 caption with the prompt padding mask turned into a -10000 additive bias, and a
GELU(tanh) MLP, modulated by adaLN-single (one timestep MLP shared by every block, each block adding its own learned
scale-shift table); final LayerNorm with scale / shift, linear out).

Architecture after Lightricks/LTX-Video `transformer/config.json`, shrunk: 32 heads x 64 dims (2048 hidden) ->
2 heads x 32 dims (64 hidden), cross_attention_dim 2048 -> 64 (= hidden, as published), 28 layers -> 2,
caption_channels 4096 (T5-v1.1-XXL) -> 64, 128 text tokens (max_sequence_length) -> 8, latents 21 frames x 15 x 22
(161 frames at 480 x 704) -> 3 frames x 8 x 12 (17 frames at 256 x 384; the VAE compresses 8x in time, 32x in space):
288 video tokens instead of 6930.
Inputs: packed noisy latents (batch, 3 * 8 * 12, 128) (the pipeline's _pack_latents of (batch, 128, 3, 8, 12):
tokens in frame, row, column order), T5 hidden states (batch, 8, 64), timestep (batch,) (flow matching: a float in
[0, 1000), as the pipeline passes it) and the T5 prompt attention mask (batch, 8) (bool, as the pipeline makes it)
with the second prompt 4 tokens shorter (right-padded). The latent frame / height / width counts and the RoPE
interpolation scale are python numbers baked into Model.forward, as the pipeline passes them.
Output: `.sample` (batch, 288, 128): predicted flow velocity, still packed.
"""
import torch
from diffusers import LTXVideoTransformer3DModel
from torch import nn

batch_size = 2
in_channels = 128  # VAE latent channels, as published
latent_num_frames = 3  # (17 - 1) // 8 + 1; published 21 ((161 - 1) // 8 + 1)
latent_height = 8  # 256 px // 32; published 15 (480 px)
latent_width = 12  # 384 px // 32; published 22 (704 px)
frame_rate = 25  # the pipeline's default
vae_temporal_compression_ratio = 8
vae_spatial_compression_ratio = 32
seq_len = 8  # T5 tokens (max_sequence_length); published 128
caption_channels = 64  # T5 width; published 4096 (T5-v1.1-XXL)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LTXVideoTransformer3DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep, encoder_attention_mask):
        return self.model(
            hidden_states=hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            timestep=timestep,
            encoder_attention_mask=encoder_attention_mask,
            num_frames=latent_num_frames,
            height=latent_height,
            width=latent_width,
            rope_interpolation_scale=(
                vae_temporal_compression_ratio / frame_rate,
                vae_spatial_compression_ratio,
                vae_spatial_compression_ratio,
            ),
        ).sample


def get_inputs():
    latents = torch.randn(batch_size, in_channels, latent_num_frames, latent_height, latent_width)
    hidden_states = latents.permute(0, 2, 3, 4, 1).flatten(1, 3)  # _pack_latents with patch sizes 1
    encoder_hidden_states = torch.randn(batch_size, seq_len, caption_channels)
    timestep = torch.rand(batch_size) * 1000  # flow-matching sigma * 1000
    encoder_attention_mask = torch.ones(batch_size, seq_len, dtype=torch.bool)
    encoder_attention_mask[1, -4:] = False  # the second prompt is 4 tokens shorter
    return [hidden_states, encoder_hidden_states, timestep, encoder_attention_mask]


def get_init_inputs():
    # Kept from LTX-Video: in/out channels 128, patch_size / patch_size_t 1, gelu-approximate MLP,
    # qk_norm "rms_norm_across_heads", no elementwise affine in the block norms, norm_eps 1e-6, attention and
    # attention-out biases.
    return [dict(
        in_channels=in_channels,
        out_channels=in_channels,
        patch_size=1,
        patch_size_t=1,
        num_attention_heads=2,  # published 32
        attention_head_dim=32,  # published 64
        cross_attention_dim=64,  # published 2048 (= num_attention_heads * attention_head_dim)
        num_layers=2,  # published 28
        activation_fn="gelu-approximate",
        qk_norm="rms_norm_across_heads",
        norm_elementwise_affine=False,
        norm_eps=1e-6,
        caption_channels=caption_channels,  # published 4096
        attention_bias=True,
        attention_out_bias=True,
    )]
