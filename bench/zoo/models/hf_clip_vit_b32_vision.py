"""CLIP ViT-B/32 vision tower: the vision_config of `openai/clip-vit-base-patch32` (= CLIPVisionConfig() defaults).

CLIPVisionModel (pre-LN ViT with quick_gelu, post-layernorm on the CLS token). Input: 224 x 224 RGB images
(49 patches + CLS). Output: (last_hidden_state (batch, 50, 768), pooler_output (batch, 768)).
"""
import torch
from torch import nn
from transformers import CLIPVisionConfig, CLIPVisionModel

batch_size = 1
image_size = 224


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CLIPVisionModel(config)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # openai/clip-vit-base-patch32 vision_config: hidden 768, intermediate 3072, 12 layers, 12 heads,
    # image 224, patch 32, quick_gelu, layer_norm_eps 1e-5: all CLIPVisionConfig defaults.
    return [CLIPVisionConfig()]
