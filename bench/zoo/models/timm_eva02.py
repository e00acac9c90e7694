"""timm `eva02_tiny_patch14_224` (pretrained=False): EVA-02 Tiny, a ViT with 2D rotary position embeddings (RoPE)
in attention and SwiGLU MLPs, patch 14 (16 x 16 tokens + class token), 12 blocks of width 192.

Published timm config unchanged; it is the MIM-pretrained model (`.mim_in22k`), which has no classifier head
(num_classes=0), so the output is the pooled image embedding (batch, 192). Input: 224 x 224 RGB images.
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("eva02_tiny_patch14_224", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
