"""Mask2Former universal segmentation (Swin backbone -> pixel decoder: the three coarsest backbone maps (strides 8, 16,
32) projected to one width, flattened with sine position and level embeddings and refined by multi-scale
deformable-attention encoder layers (each query samples 4 points per head in each of the 3 levels), then an FPN step
adds the stride-4 map and a 1x1 conv gives the per-pixel mask features -> masked-attention transformer decoder: learned
queries (content + position) cross-attend to one pixel-decoder level per layer, round-robin from coarse to fine, each
cross-attention restricted to the foreground (sigmoid > 0.5) of the mask the previous layer predicted, then
self-attention and an FFN; after every layer a class head and a mask head (MLP query embedding dotted with the mask
features) predict), after `facebook/mask2former-swin-tiny-coco-instance`, shrunk.

Mask2FormerForUniversalSegmentation.
Backbone (Swin-T): embed_dim 96 -> 32, depths (2, 2, 6, 2) -> (1, 1, 2, 1), heads (3, 6, 12, 24) -> (1, 2, 4, 8)
(head_dim 32 kept), pretraining image_size 224 -> 96 (no absolute position embedding, so it only sizes the config).
Pixel decoder / transformer decoder: feature_size, mask_feature_size and hidden_dim 256 -> 64 (8 heads kept: head_dim
32 -> 8), encoder_layers 6 -> 2, encoder_feedforward_dim 1024 -> 128, decoder_layers 10 -> 4 (1 initial prediction +
9 masked-attention layers, three rounds over the 3 scales -> 1 + 3, one round), dim_feedforward 2048 -> 256.
Kept: 100 queries, 80 COCO instance classes (+ no-object), window 7, patch 4, relu, post-norm decoder layers.
Inputs, as Mask2FormerImageProcessor returns them (published: shortest edge 800, longest 1333, padded to a multiple
of 32 -> here 96 x 128): pixel_values (2, 3, 96, 128), the second image 96 x 96 and zero-padded at its right border,
and pixel_mask (2, 96, 128) marking that padding (Mask2Former accepts pixel_mask but does not use it).
Outputs: class_queries_logits (2, 100, 81), masks_queries_logits (2, 100, 24, 32) (at stride 4).
"""
import torch
from torch import nn
from transformers import Mask2FormerConfig, Mask2FormerForUniversalSegmentation, SwinConfig

batch_size = 2
height, width = 96, 128
padded_width = 32  # second image is 96 x 96
num_labels = 80


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Mask2FormerForUniversalSegmentation(config)

    def forward(self, pixel_values, pixel_mask):
        out = self.model(pixel_values=pixel_values, pixel_mask=pixel_mask)
        return out.class_queries_logits, out.masks_queries_logits


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, height, width)
    pixel_mask = torch.ones(batch_size, height, width, dtype=torch.long)
    pixel_values[1, :, :, -padded_width:] = 0.0
    pixel_mask[1, :, -padded_width:] = 0
    return [pixel_values, pixel_mask]


def get_init_inputs():
    # facebook/mask2former-swin-tiny-coco-instance config.json. Kept: Swin patch 4, window 7, mlp_ratio 4, gelu,
    # qkv_bias, drop_path_rate 0.3, no absolute position embedding, all four stages out; Mask2Former 8 heads, relu,
    # pre_norm False, common_stride 4, feature_strides (4, 8, 16, 32), 100 queries, 80 labels, auxiliary loss on.
    backbone_config = SwinConfig(
        image_size=height,  # published 224
        embed_dim=32,  # published 96
        depths=[1, 1, 2, 1],  # published [2, 2, 6, 2]
        num_heads=[1, 2, 4, 8],  # published [3, 6, 12, 24]
        window_size=7,
        drop_path_rate=0.3,
        out_features=["stage1", "stage2", "stage3", "stage4"],
    )
    return [Mask2FormerConfig(
        backbone_config=backbone_config,
        feature_size=64,  # published 256
        mask_feature_size=64,  # published 256
        hidden_dim=64,  # published 256
        encoder_feedforward_dim=128,  # published 1024
        encoder_layers=2,  # published 6
        decoder_layers=4,  # published 10
        num_attention_heads=8,
        dim_feedforward=256,  # published 2048
        num_queries=100,
        num_labels=num_labels,
    )]
