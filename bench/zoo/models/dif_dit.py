"""diffusers `DiTTransformer2DModel`: class-conditional Diffusion Transformer (patchify latents, transformer blocks
modulated by adaLN-Zero from the timestep + class-label embedding, unpatchify to noise and learned-variance
channels).

Architecture after facebook/DiT-XL-2-256 `transformer/config.json`, shrunk: 16 heads x 72 dims (1152 hidden) ->
4 heads x 32 dims (128 hidden), 28 layers -> 2, 32 x 32 latents -> 16 x 16 (patch 2 kept: 64 tokens instead of 256).
Inputs: noisy latents (batch, 4, 16, 16), timestep (batch,), ImageNet class labels (batch,).
Output: `.sample` (batch, 8, 16, 16): predicted noise and variance (out_channels 8 as published).
"""
import torch
from torch import nn
from diffusers import DiTTransformer2DModel

batch_size = 2
latent_size = 16
num_classes = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DiTTransformer2DModel(**config)

    def forward(self, hidden_states, timestep, class_labels):
        return self.model(hidden_states, timestep=timestep, class_labels=class_labels).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, 4, latent_size, latent_size)
    timestep = torch.randint(0, 1000, (batch_size,))
    class_labels = torch.randint(0, num_classes, (batch_size,))
    return [hidden_states, timestep, class_labels]


def get_init_inputs():
    # Kept from DiT-XL-2-256: in_channels 4, out_channels 8, patch_size 2, norm_type "ada_norm_zero",
    # num_embeds_ada_norm 1000 (ImageNet classes), gelu-approximate, attention bias, no elementwise affine
    # in the norms, norm_eps 1e-5, no dropout.
    # Shrunk: num_attention_heads 16 -> 4, attention_head_dim 72 -> 32, num_layers 28 -> 2, sample_size 32 -> 16.
    return [dict(
        num_attention_heads=4,
        attention_head_dim=32,
        in_channels=4,
        out_channels=8,
        num_layers=2,
        sample_size=latent_size,
        patch_size=2,
        norm_type="ada_norm_zero",
        num_embeds_ada_norm=num_classes,
        activation_fn="gelu-approximate",
        attention_bias=True,
        norm_elementwise_affine=False,
        norm_eps=1e-5,
        dropout=0.0,
        upcast_attention=False,
    )]
