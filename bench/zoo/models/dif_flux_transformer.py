"""diffusers `FluxTransformer2DModel`: the FLUX.1 rectified-flow transformer (double-stream MM-DiT blocks with
separate image / text weights and joint attention, then single-stream blocks with fused attention + MLP;
3-axis rotary embedding from the image and text position ids; adaLN modulation from timestep + pooled CLIP text).

Architecture after black-forest-labs/FLUX.1-schnell `transformer/config.json`, shrunk: 24 heads x 128 dims
(3072 hidden) -> 2 heads x 32 dims (64 hidden), rotary axes (16, 56, 56) -> (4, 14, 14), 19 double + 38 single
blocks -> 2 + 2, joint_attention_dim (T5 width) 4096 -> 64, pooled_projection_dim (CLIP width) 768 -> 32.
Kept: in_channels 64 (16 latent channels packed 2 x 2), patch_size 1, guidance_embeds False (schnell).
Inputs as FluxPipeline passes them for a 128 x 128 image: packed latents (2, 64, 64) (the 16 x 16 VAE latent
as 8 x 8 tokens), T5 states (2, 16, 64) (max_sequence_length 256 -> 16), pooled CLIP (2, 32),
timestep (2,) already divided by 1000, img_ids (64, 3), txt_ids (16, 3). Output: `.sample` (2, 64, 64).
"""
import torch
from torch import nn
from diffusers import FluxTransformer2DModel

batch_size = 2
latent_hw = 16  # 128 px / 8 (VAE)
num_image_tokens = (latent_hw // 2) ** 2  # 64
text_len = 16
joint_attention_dim = 64
pooled_projection_dim = 32


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = FluxTransformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, pooled_projections, timestep, img_ids, txt_ids):
        return self.model(
            hidden_states=hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            pooled_projections=pooled_projections,
            timestep=timestep,
            img_ids=img_ids,
            txt_ids=txt_ids,
            guidance=None,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, num_image_tokens, 64)
    encoder_hidden_states = torch.randn(batch_size, text_len, joint_attention_dim)
    pooled_projections = torch.randn(batch_size, pooled_projection_dim)
    timestep = torch.rand(batch_size)  # sigma in (0, 1], as the pipeline passes t / 1000
    # FluxPipeline._prepare_latent_image_ids: (0, row, col) per packed token
    img_ids = torch.zeros(latent_hw // 2, latent_hw // 2, 3)
    img_ids[..., 1] = torch.arange(latent_hw // 2)[:, None]
    img_ids[..., 2] = torch.arange(latent_hw // 2)[None, :]
    img_ids = img_ids.reshape(num_image_tokens, 3)
    txt_ids = torch.zeros(text_len, 3)
    return [hidden_states, encoder_hidden_states, pooled_projections, timestep, img_ids, txt_ids]


def get_init_inputs():
    # Kept from FLUX.1-schnell: patch_size 1, in_channels 64, out_channels None (= in), guidance_embeds False.
    # Shrunk: heads 24 -> 2, head dim 128 -> 32, axes_dims_rope (16, 56, 56) -> (4, 14, 14) (sums to the head dim),
    # num_layers 19 -> 2, num_single_layers 38 -> 2, joint_attention_dim 4096 -> 64, pooled_projection_dim 768 -> 32.
    return [dict(
        patch_size=1,
        in_channels=64,
        out_channels=None,
        num_layers=2,
        num_single_layers=2,
        attention_head_dim=32,
        num_attention_heads=2,
        joint_attention_dim=joint_attention_dim,
        pooled_projection_dim=pooled_projection_dim,
        guidance_embeds=False,
        axes_dims_rope=(4, 14, 14),
    )]
