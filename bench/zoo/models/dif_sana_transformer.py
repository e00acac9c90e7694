"""diffusers `SanaTransformer2DModel`: the Sana linear Diffusion Transformer (patch-1 embedding of 32-channel DC-AE
latents with no position embedding; blocks of ReLU linear self-attention (softmax-free: ReLU(Q) (ReLU(K)^T V),
normalized by ReLU(Q) sum(ReLU(K))), softmax cross-attention to the RMS-normalized caption projection, and a Mix-FFN
(GLUMBConv: 1x1 conv, SiLU, 3x3 depthwise conv, SiLU-gated GLU, 1x1 conv) on the token grid, modulated by adaLN-single
(one timestep MLP shared by every block, each block adding its own learned scale-shift table)).

Architecture after Efficient-Large-Model/Sana_600M_1024px_diffusers `transformer/config.json`, shrunk:
self-attention 36 heads x 32 dims (1152 hidden) -> 4 heads x 32 dims (128 hidden), cross-attention 16 heads x 72 dims
-> 2 heads x 64 dims (cross_attention_dim 1152 -> 128, = hidden as published), 28 layers -> 2,
caption_channels 2304 (Gemma-2-2B) -> 64, 32 x 32 latents -> 16 x 16 (patch 1 kept: 256 tokens instead of 1024),
300 text tokens -> 8.
Inputs: noisy latents (batch, 32, 16, 16), text-encoder hidden states (batch, 8, 64), timestep (batch,) (flow
matching: a float in [0, 1000), as the pipeline passes it), and the Gemma prompt attention mask (batch, 8) with the
second prompt shorter (the tokenizer pads on the right: its last 4 tokens are padding).
Output: `.sample` (batch, 32, 16, 16): predicted flow velocity.
"""
import torch
from diffusers import SanaTransformer2DModel
from torch import nn

batch_size = 2
latent_size = 16
seq_len = 8  # text tokens; published max 300
caption_channels = 64  # text-encoder width; published 2304 (Gemma-2-2B-IT)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SanaTransformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep, encoder_attention_mask):
        return self.model(
            hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            timestep=timestep,
            encoder_attention_mask=encoder_attention_mask,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, 32, latent_size, latent_size)
    encoder_hidden_states = torch.randn(batch_size, seq_len, caption_channels)
    timestep = torch.rand(batch_size) * 1000  # flow-matching sigma * 1000
    encoder_attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    encoder_attention_mask[1, -4:] = 0  # the second prompt is 4 tokens shorter
    return [hidden_states, encoder_hidden_states, timestep, encoder_attention_mask]


def get_init_inputs():
    # Kept from Sana_600M_1024px: in/out channels 32 (DC-AE f32c32), patch_size 1, mlp_ratio 2.5, no attention bias
    # in the linear self-attention, no elementwise affine in the norms, norm_eps 1e-6, no dropout, no position
    # embedding (interpolation_scale null), no guidance embedding, no qk norm, timestep_scale 1.0.
    return [dict(
        in_channels=32,
        out_channels=32,
        num_attention_heads=4,  # published 36
        attention_head_dim=32,
        num_layers=2,  # published 28
        num_cross_attention_heads=2,  # published 16
        cross_attention_head_dim=64,  # published 72
        cross_attention_dim=128,  # published 1152 (= num_attention_heads * attention_head_dim)
        caption_channels=caption_channels,  # published 2304
        mlp_ratio=2.5,
        dropout=0.0,
        attention_bias=False,
        sample_size=latent_size,  # published 32
        patch_size=1,
        norm_elementwise_affine=False,
        norm_eps=1e-6,
        interpolation_scale=None,
        guidance_embeds=False,
        qk_norm=None,
        timestep_scale=1.0,
    )]
