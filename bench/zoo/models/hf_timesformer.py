"""TimeSformer video classifier with divided space-time attention (each frame cut into 16 x 16 patches by a shared
Conv2d patch embedding; a CLS token and learned spatial position embeddings added per frame, then learned time
embeddings added per frame index across the patch tokens; every block runs, with pre-LayerNorms, first temporal
attention (each patch position attends over the 8 frames, CLS excluded) followed by a linear (temporal_dense) and a
residual, then spatial attention (each frame's patches attend among themselves plus a copy of the CLS token; the 8
per-frame CLS outputs are averaged back into one CLS), then a GELU MLP; final LayerNorm, linear classifier on the CLS
token), after `facebook/timesformer-base-finetuned-k400`, shrunk.

TimesformerForVideoClassification.
Shrunk: 224 x 224 frames -> 96 x 96 (patch 16 kept: 14 x 14 = 196 -> 6 x 6 = 36 patches per frame, 8 x 36 + 1 =
289 tokens), hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head size 64 -> 32), intermediate 3072 -> 512.
Kept: 8 frames, attention_type "divided_space_time", gelu, qkv bias, layer_norm_eps 1e-6, 400 Kinetics-400 classes.
Input: pixel_values (2, 8, 3, 96, 96) (batch, frames, channels, height, width, as VideoMAEImageProcessor returns
them for this checkpoint).
Output: logits (2, 400).
"""
import torch
from torch import nn
from transformers import TimesformerConfig, TimesformerForVideoClassification

batch_size = 2
num_frames = 8
image_size = 96
num_labels = 400


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = TimesformerForVideoClassification(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.randn(batch_size, num_frames, 3, image_size, image_size)]


def get_init_inputs():
    # facebook/timesformer-base-finetuned-k400 config.json. Kept: num_frames 8, patch_size 16, attention_type
    # "divided_space_time", gelu, qkv_bias, layer_norm_eps 1e-6, hidden / attention dropout 0, drop_path_rate 0,
    # initializer_range 0.02, 400 labels.
    return [TimesformerConfig(
        image_size=image_size,  # published 224
        patch_size=16,
        num_frames=num_frames,
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        layer_norm_eps=1e-6,
        qkv_bias=True,
        attention_type="divided_space_time",
        num_labels=num_labels,
    )]
