"""diffusers `AuraFlowTransformer2DModel`: the AuraFlow v0.1 flow-matching text-to-image transformer (2 x 2 patches
of the SDXL-VAE latents flattened and projected by a Linear, plus a learned position embedding whose centre crop of
a square max-size grid matches the patch grid; the Pile-T5 caption projected without bias and prefixed with 8
learned register tokens; conditioning: a sinusoidal embedding of the timestep in [0, 1] (scaled by 1000) through an
MLP; first MMDiT joint blocks (separate AdaLayerNormZero, FP32 LayerNorm on Q / K, bias-free projections and SwiGLU
MLPs (hidden 2/3 of 4x, rounded up to a multiple of 256) for the image and the text streams, one joint attention
over [text + registers, image]; post-attention: LayerNorm(residual + gated attention) then shift / scale, and the
gated MLP added to the block's input), then single DiT blocks over the concatenated sequence with the same layout
and one set of weights; final SiLU + linear scale / shift (no LayerNorm), bias-free linear out, unpatchify).

Architecture after fal/AuraFlow `transformer/config.json`, shrunk: 12 heads x 256 dims (3072 hidden) -> 2 heads x 32
dims (64 hidden; SwiGLU hidden 8192 -> 256, the 256-multiple rounding kept), caption_projection_dim 3072 -> 64
(= hidden, as published), joint_attention_dim 2048 (Pile-T5-XL) -> 64, num_mmdit_layers 4 -> 2,
num_single_dit_layers 32 -> 2, 256 text tokens (max_sequence_length) -> 8 (+ the 8 register tokens, kept),
latents 128 x 128 (1024 px) -> 16 x 16 (128 px: an 8 x 8 patch grid), sample_size 64 -> 8, pos_embed_max_size
4096 (64 x 64 grid) -> 256 (16 x 16).
Inputs: noisy latents (batch, 4, 16, 16), Pile-T5 states (batch, 8, 64) with the second prompt 3 tokens shorter: its
padded tokens' states multiplied by the attention mask (zeroed), as the pipeline's `encode_prompt` does (no mask
reaches the transformer), timestep (batch,) (one flow-matching sigma in (0, 1], `torch.tensor([t / 1000])
.expand(batch)` as the pipeline passes it).
Output: `.sample` (batch, 4, 16, 16): predicted flow velocity.
"""
import torch
from diffusers import AuraFlowTransformer2DModel
from torch import nn

batch_size = 2
in_channels = 4  # SDXL VAE latent channels, as published
latent_size = 16  # 128 px // 8; published 128 (1024 px)
patch_size = 2
seq_len = 8  # Pile-T5 tokens (max_sequence_length); published 256
joint_attention_dim = 64  # Pile-T5 width; published 2048


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AuraFlowTransformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep):
        return self.model(
            hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            timestep=timestep,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, in_channels, latent_size, latent_size)
    attention_mask = torch.ones(batch_size, seq_len)
    attention_mask[1, -3:] = 0  # the second prompt is 3 tokens shorter
    encoder_hidden_states = torch.randn(batch_size, seq_len, joint_attention_dim)
    encoder_hidden_states = encoder_hidden_states * attention_mask.unsqueeze(-1)  # as encode_prompt masks them
    timestep = (torch.rand(1) * 1000).round() / 1000  # a FlowMatchEuler timestep t, passed as t / 1000
    timestep = timestep.expand(batch_size)
    return [hidden_states, encoder_hidden_states, timestep]


def get_init_inputs():
    # Kept from fal/AuraFlow: patch_size 2, in/out channels 4, caption_projection_dim = hidden, 8 register tokens
    # (not configurable), the 256-channel sinusoidal timestep embedding (not configurable).
    return [dict(
        sample_size=latent_size // patch_size,  # published 64
        patch_size=patch_size,
        in_channels=in_channels,
        num_mmdit_layers=2,  # published 4
        num_single_dit_layers=2,  # published 32
        attention_head_dim=32,  # published 256
        num_attention_heads=2,  # published 12
        joint_attention_dim=joint_attention_dim,  # published 2048
        caption_projection_dim=64,  # published 3072 (= num_attention_heads * attention_head_dim)
        out_channels=in_channels,
        pos_embed_max_size=256,  # published 4096
    )]
