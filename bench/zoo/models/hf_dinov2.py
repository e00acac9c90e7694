"""DINOv2 ViT (CLS token, learned position embeddings interpolated to the input grid, LayerScale on both residual
branches, plain GELU MLP; pooler output = the final-LayerNorm CLS token), after `facebook/dinov2-small`, shrunk.

Shrunk: hidden 384 -> 128, 12 layers -> 2, 6 heads -> 2 (head_dim 64 kept). Kept: patch 14, image_size 518
(37 x 37 position table, bicubically interpolated to the 16 x 16 grid of a 224 x 224 input, which is what the
DINOv2 image processor's 224 crop gives), layerscale 1.0, use_swiglu_ffn False (the small model's plain MLP).
Input: pixel_values (2, 3, 224, 224). Outputs: last_hidden_state (2, 257, 128), pooler_output (2, 128).
"""
import torch
from torch import nn
from transformers import Dinov2Config, Dinov2Model

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Dinov2Model(config)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # facebook/dinov2-small config.json. Kept: patch 14, image_size 518, mlp_ratio 4, gelu, layerscale_value 1.0,
    # use_swiglu_ffn False, qkv bias, layer_norm_eps 1e-6, drop_path 0.
    return [Dinov2Config(
        hidden_size=128,  # published 384
        num_hidden_layers=2,  # published 12
        num_attention_heads=2,  # published 6
        mlp_ratio=4,
        image_size=518,
        patch_size=14,
        hidden_act="gelu",
        layerscale_value=1.0,
        use_swiglu_ffn=False,
        qkv_bias=True,
        layer_norm_eps=1e-6,
        drop_path_rate=0.0,
    )]
