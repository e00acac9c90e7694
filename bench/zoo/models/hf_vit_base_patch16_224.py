"""ViT-base/16 at 224 x 224: the published config of `google/vit-base-patch16-224` (= ViTConfig() defaults).

ViTModel (backbone + pooler, no classification head). Input: 224 x 224 RGB images (196 patches + CLS).
Output: (last_hidden_state (batch, 197, 768), pooler_output (batch, 768)).
"""
import torch
from torch import nn
from transformers import ViTConfig, ViTModel

batch_size = 1
image_size = 224


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ViTModel(config)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # google/vit-base-patch16-224 config.json: hidden 768, 12 layers, 12 heads, intermediate 3072, gelu,
    # image 224, patch 16, qkv_bias, layer_norm_eps 1e-12: all ViTConfig defaults.
    return [ViTConfig()]
