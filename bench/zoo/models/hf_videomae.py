"""VideoMAE encoder (video ViT: 3D tubelet patch embedding, fixed sinusoidal positions, q/v biases only),
after `MCG-NJU/videomae-base` (the self-supervised checkpoint: use_mean_pooling False, so a final LayerNorm).

Shrunk: 16 frames of 224x224 -> 8 frames of 64x64 (tubelet 2, patch 16 kept: 4 x 4 x 4 = 64 tokens),
hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4, intermediate 3072 -> 512.
Input: pixel_values (2, 8, 3, 64, 64). Output: last_hidden_state (2, 64, 128).
"""
import torch
from torch import nn
from transformers import VideoMAEConfig, VideoMAEModel

batch_size = 2
num_frames = 8
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VideoMAEModel(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).last_hidden_state


def get_inputs():
    return [torch.randn(batch_size, num_frames, 3, image_size, image_size)]


def get_init_inputs():
    # MCG-NJU/videomae-base config.json. Kept: patch 16, tubelet 2, gelu, qv_bias, layer_norm_eps 1e-12,
    # use_mean_pooling False.
    return [VideoMAEConfig(
        image_size=image_size,  # published 224
        num_frames=num_frames,  # published 16
        patch_size=16,
        tubelet_size=2,
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        qv_bias=True,
        layer_norm_eps=1e-12,
        use_mean_pooling=False,
    )]
