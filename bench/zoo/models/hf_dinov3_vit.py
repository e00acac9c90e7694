"""DINOv3 ViT (Siméoni et al. 2025, "DINOv3"): a ViT with a conv patch embedding, a CLS token and register tokens
prepended to the patch tokens, and no learned position table: 2D axial RoPE computed on the fly from the patch-center
coordinates normalized to [-1, 1] (so any grid size works; head_dim / 4 frequencies per axis with base rope_theta
100, the angles 2 pi * coord * freq laid out as [y freqs, x freqs] and tiled twice), applied to the queries and keys
of the patch tokens only (the CLS and register tokens are left unrotated); pre-norm blocks with LayerScale on both
residual branches, a query / value bias but no key bias, a plain GELU MLP; a final LayerNorm (pooler = its CLS
token). The random shift / jitter / rescale of the RoPE coordinates is a training-only augmentation (off in eval).

DINOv3ViTModel after `facebook/dinov3-vits16-pretrain-lvd1689m` (ViT-S/16 distilled, 4 registers), shrunk.
Shrunk: hidden 384 -> 128, intermediate 1536 -> 512, 12 layers -> 2, 6 heads -> 2 (head dim 64 kept, so 16 RoPE
frequencies per axis as published), image 224 -> 128 (14 x 14 patch grid -> 8 x 8). Kept: patch 16, 4 register
tokens, rope_theta 100, layerscale 1.0, query/value/proj/MLP bias on and key bias off, gelu, layer_norm_eps 1e-5,
pos_embed_rescale 2.0 (train only), use_gated_mlp False.
Input: pixel_values (2, 3, 128, 128). Output: last_hidden_state (2, 69, 128) (1 CLS + 4 registers + 64 patches).
"""
import torch
from torch import nn
from transformers import DINOv3ViTConfig, DINOv3ViTModel

batch_size = 2
image_size = 128  # published 224


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DINOv3ViTModel(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).last_hidden_state


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # facebook/dinov3-vits16-pretrain-lvd1689m config.json. Kept: patch 16, num_register_tokens 4, rope_theta 100,
    # query_bias True, key_bias False, value_bias True, proj_bias True, mlp_bias True, layerscale_value 1.0,
    # use_gated_mlp False, gelu, layer_norm_eps 1e-5, pos_embed_shift / jitter None, pos_embed_rescale 2.0,
    # drop_path 0.
    return [DINOv3ViTConfig(
        hidden_size=128,  # published 384
        intermediate_size=512,  # published 1536
        num_hidden_layers=2,  # published 12
        num_attention_heads=2,  # published 6
        image_size=image_size,  # published 224
        patch_size=16,
        num_register_tokens=4,
        rope_theta=100.0,
        query_bias=True,
        key_bias=False,
        value_bias=True,
        proj_bias=True,
        mlp_bias=True,
        layerscale_value=1.0,
        use_gated_mlp=False,
        hidden_act="gelu",
        layer_norm_eps=1e-5,
        pos_embed_shift=None,
        pos_embed_jitter=None,
        pos_embed_rescale=2.0,
        drop_path_rate=0.0,
        attention_dropout=0.0,
    )]
