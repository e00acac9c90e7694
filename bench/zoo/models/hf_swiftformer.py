"""SwiftFormer image classifier (convolutional stem of two stride-2 3x3 conv + BN + ReLU (stride 4); four stages, each
of conv encoder blocks (3x3 depthwise conv, BN, 1x1 conv expanding 4x, GELU, 1x1 conv, per-channel layer scale,
residual) followed by one SwiftFormer encoder block: a local-representation conv block of the same shape (no
expansion), then efficient additive attention on the flattened tokens (query and key linears, both L2-normalized
per token; per-token scores q . w_g (a learned vector) scaled by dim^-0.5, turned into weights and used to pool the
queries into one global query vector, which is multiplied elementwise with every key, then a linear, plus the
queries, then a final linear: linear in the number of tokens, no token-token matrix) and a BN + 1x1-conv MLP (4x,
GELU), each added under a per-channel layer scale; stride-2 3x3 conv + BN downsampling between stages; head: BN,
global average pool, and the mean of a classification and a distillation linear head), after
`MBZUAI/swiftformer-xs`, at a smaller image size.

SwiftFormerForImageClassification with the published SwiftFormer-XS config (depths (3, 3, 6, 4), widths (48, 56,
112, 220), 1000 ImageNet classes; 3.48M parameters), nothing shrunk but the input: 224 x 224 -> 128 x 128 (stage grids
32, 16, 8, 4 a side instead of 56, 28, 14, 7; the model has no position embedding, so nothing is sized by the image).
Note the transformers port's token weights: it softmaxes the (tokens, 1) score tensor over its last, size-1 axis, so
every weight is exactly 1 and the global query is the plain sum of the normalized queries (the original code
L2-normalizes the scores over the tokens instead); the model is run as transformers computes it.
Input: pixel_values (2, 3, 128, 128). Output: logits (2, 1000). The encoder blocks' layer scales are re-initialized
(see Model.__init__) so that the attention and MLP branches are not scaled away.
"""
import torch
from torch import nn
from transformers import SwiftFormerConfig, SwiftFormerForImageClassification

batch_size = 2
image_size = 128  # published 224


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SwiftFormerForImageClassification(config)
        # The encoder blocks' layer scales start at layer_scale_init_value = 1e-5 (as in the original code), which
        # multiplies the attention and MLP branches by 1e-5: the last block of every stage is then the identity to
        # ~1e-5 and its attention does not reach the logits. Stand in for trained layer scales with 1 (as the conv
        # blocks' own layer scales start).
        for module in self.model.modules():
            if hasattr(module, "layer_scale_1"):
                nn.init.ones_(module.layer_scale_1)
                nn.init.ones_(module.layer_scale_2)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # MBZUAI/swiftformer-xs config.json. Kept: every field: depths, embed_dims, mlp_ratio 4, all four
    # downsamples, gelu, down_patch_size 3, down_stride 2, down_pad 1, drop_path / drop_mlp / drop_conv_encoder 0,
    # use_layer_scale True, layer_scale_init_value 1e-5, batch_norm_eps 1e-5, 1000 labels.
    return [SwiftFormerConfig(
        image_size=image_size,  # published 224 (unused by the model)
        num_channels=3,
        depths=[3, 3, 6, 4],
        embed_dims=[48, 56, 112, 220],
        mlp_ratio=4,
        downsamples=[True, True, True, True],
        hidden_act="gelu",
        down_patch_size=3,
        down_stride=2,
        down_pad=1,
        drop_path_rate=0.0,
        drop_mlp_rate=0.0,
        drop_conv_encoder_rate=0.0,
        use_layer_scale=True,
        layer_scale_init_value=1e-5,
        batch_norm_eps=1e-5,
        num_labels=1000,
    )]
