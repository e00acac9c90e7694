"""Swin2SR image super-resolution (SwinIR with Swin-V2 blocks: the image is reflect-padded to a multiple of the window,
mean-subtracted, and a 3x3 conv gives shallow features; residual Swin transformer blocks (RSTB: Swin-V2 layers with
post-norm, scaled cosine attention with a learned per-head clamped logit scale, a continuous relative position bias
from a small MLP over log-spaced relative coordinates, regular / shifted windows with the shift mask, then a 3x3 conv
and a residual add) and a body conv with a long skip; reconstruction by a pixel-shuffle upsampler (conv + LeakyReLU,
conv to 4x channels + PixelShuffle(2), final conv) and the mean added back), after
`caidas/swin2SR-classical-sr-x2-64`, shrunk.

Swin2SRForImageSuperResolution, x2 classical SR with the "pixelshuffle" upsampler and "1conv" residual connection as
published. Shrunk: embed_dim 180 -> 48, 6 RSTBs of depth 6 -> 2 RSTBs of depth 2 (one regular- and one
shifted-window layer each), 6 heads kept (head size 30 -> 8), image 64 x 64 -> 32 x 32 (window 8 kept: 16 windows of
64 tokens instead of 64). The upsampler's 64 features are hard-coded in transformers (as published).
Input: pixel_values (2, 3, 32, 32) in [0, 1] (Swin2SR's processor only rescales to [0, 1] and pads to a multiple of
8).
Output: `.reconstruction` (2, 3, 64, 64).
"""
import torch
from torch import nn
from transformers import Swin2SRConfig, Swin2SRForImageSuperResolution

batch_size = 2
image_size = 32  # low-resolution input; published training patch 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Swin2SRForImageSuperResolution(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).reconstruction


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # caidas/swin2SR-classical-sr-x2-64 config.json. Kept: patch 1, 3 channels in / out, window 8, mlp_ratio 2,
    # qkv bias, gelu, dropouts 0, drop_path_rate 0.1 (inactive in eval), no absolute embedding,
    # layer_norm_eps 1e-5, initializer_range 0.02, upscale 2, img_range 1.0, "1conv", "pixelshuffle".
    return [Swin2SRConfig(
        image_size=image_size,  # published 64
        patch_size=1,
        num_channels=3,
        embed_dim=48,  # published 180
        depths=[2, 2],  # published [6, 6, 6, 6, 6, 6]
        num_heads=[6, 6],  # published [6, 6, 6, 6, 6, 6]
        window_size=8,
        mlp_ratio=2.0,
        qkv_bias=True,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        drop_path_rate=0.1,
        hidden_act="gelu",
        use_absolute_embeddings=False,
        initializer_range=0.02,
        layer_norm_eps=1e-5,
        upscale=2,
        img_range=1.0,
        resi_connection="1conv",
        upsampler="pixelshuffle",
    )]
