"""SegFormer semantic segmentation (hierarchical Mix Transformer encoder: overlapping patch merging by strided
convolutions with padding (7x7 stride 4, then 3x3 stride 2), efficient self-attention whose keys/values are
spatially reduced by a strided conv + LayerNorm (sr_ratios 8 / 4 / 2 / 1), Mix-FFN with a 3x3 depthwise conv
between its two linears, no position embeddings; all-MLP decode head: per-stage linear projection, bilinear
upsampling to 1/4 resolution, concat, 1x1 conv fuse + BatchNorm + ReLU, 1x1 classifier), after
`nvidia/segformer-b0-finetuned-ade-512-512`, shrunk.

SegformerForSemanticSegmentation, 150 ADE20k classes as published.
Shrunk: hidden_sizes (32, 64, 160, 256) -> (32, 64, 96, 128), heads (1, 2, 5, 8) -> (1, 2, 3, 4) (head size 32
kept), depths (2, 2, 2, 2) -> (1, 1, 1, 1), decoder_hidden_size 256 -> 128, image 512 x 512 -> 64 x 64. Stages run
at 16 x 16, 8 x 8, 4 x 4 and 2 x 2 tokens; with the published sr_ratios the keys/values of the first three stages
are reduced to 2 x 2, the last stage attends over all 4 tokens.
Input: pixel_values (2, 3, 64, 64) (normalized image).
Output: logits at 1/4 of the input resolution, (2, 150, 16, 16) (users upsample them to the image size).
"""
import torch
from torch import nn
from transformers import SegformerConfig, SegformerForSemanticSegmentation

batch_size = 2
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SegformerForSemanticSegmentation(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # nvidia/segformer-b0-finetuned-ade-512-512 config.json. Kept: 4 encoder blocks, sr_ratios (8, 4, 2, 1),
    # patch_sizes (7, 3, 3, 3), strides (4, 2, 2, 2), mlp_ratios 4, gelu, layer_norm_eps 1e-6, dropouts 0,
    # classifier_dropout 0.1 and drop_path_rate 0.1 (both inactive in eval), reshape_last_stage, 150 labels,
    # semantic_loss_ignore_index 255.
    return [SegformerConfig(
        num_channels=3,
        num_encoder_blocks=4,
        depths=[1, 1, 1, 1],  # published [2, 2, 2, 2]
        sr_ratios=[8, 4, 2, 1],
        hidden_sizes=[32, 64, 96, 128],  # published [32, 64, 160, 256]
        patch_sizes=[7, 3, 3, 3],
        strides=[4, 2, 2, 2],
        num_attention_heads=[1, 2, 3, 4],  # published [1, 2, 5, 8]
        mlp_ratios=[4, 4, 4, 4],
        hidden_act="gelu",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        classifier_dropout_prob=0.1,
        initializer_range=0.02,
        drop_path_rate=0.1,
        layer_norm_eps=1e-6,
        decoder_hidden_size=128,  # published 256
        semantic_loss_ignore_index=255,
        reshape_last_stage=True,
        num_labels=150,
    )]
