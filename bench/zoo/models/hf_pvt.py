"""PVT (Pyramid Vision Transformer v1): a four-stage ViT pyramid with overlapping-free patch embeddings per stage
and spatial-reduction attention (keys / values downsampled by a strided conv, ratios 8/4/2/1), after
`Zetatech/pvt-tiny-224`, shrunk. PvtForImageClassification; output: logits (2, 10).
"""
import torch
from torch import nn
from transformers import PvtConfig, PvtForImageClassification

batch_size = 2
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PvtForImageClassification(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # Kept: patch sizes [4, 2, 2, 2], sequence_reduction_ratios [8, 4, 2, 1], mlp_ratios [8, 8, 4, 4].
    return [PvtConfig(
        image_size=image_size,  # published 224
        hidden_sizes=[16, 32, 64, 64],  # published [64, 128, 320, 512]
        depths=[1, 1, 1, 1],  # published [2, 2, 2, 2]
        num_attention_heads=[1, 2, 2, 4],  # published [1, 2, 5, 8]
        num_labels=10,  # published 1000
    )]
