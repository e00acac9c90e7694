"""PoolFormer image classifier (MetaFormer with a pooling token mixer: a 7x7 stride-4 patch-embedding conv (padding 2),
then four stages of PoolFormer blocks, each: GroupNorm with one group (LayerNorm over channels and positions), token
mixing by 3x3 average pooling (stride 1, count_include_pad=False) minus its input, scaled by a per-channel layer
scale and added; GroupNorm, a 1x1-conv MLP (4x, GELU), per-channel layer scale, residual; a 3x3 stride-2 conv (no
norm) between stages; head: GroupNorm, global average pool, linear), after `sail/poolformer_s12`, at a smaller image
size.

PoolFormerForImageClassification with the published PoolFormer-S12 config (depths (2, 2, 6, 2), widths (64, 128,
320, 512), 1000 ImageNet classes; 11.9M parameters), nothing shrunk but the input: 224 x 224 -> 128 x 128 (stage
grids 32, 16, 8, 4 a side instead of 56, 28, 14, 7; there is no position embedding, so nothing is sized by the image).
Input: pixel_values (2, 3, 128, 128) (ImageNet-normalized). Output: logits (2, 1000). The blocks' layer scales are
re-initialized (see Model.__init__) so that the pooling and MLP branches are not scaled away.
"""
import torch
from torch import nn
from transformers import PoolFormerConfig, PoolFormerForImageClassification

batch_size = 2
image_size = 128  # published 224


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PoolFormerForImageClassification(config)
        # The blocks' layer scales start at layer_scale_init_value = 1e-5 (as in the original code), which multiplies
        # the pooling token mixer and the MLP by 1e-5: every block is then the identity to ~1e-5, the logits are a
        # function of the patch-embedding / downsampling convs alone and the pooling mixer does not reach them. Stand
        # in for trained layer scales with 1.
        for module in self.model.modules():
            if hasattr(module, "layer_scale_1"):
                nn.init.ones_(module.layer_scale_1)
                nn.init.ones_(module.layer_scale_2)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # sail/poolformer_s12 config.json. Kept: every field: depths, hidden_sizes, pool_size 3, mlp_ratio 4, patch_sizes
    # (7, 3, 3, 3), strides (4, 2, 2, 2), padding (2, 1, 1, 1), 4 encoder blocks, gelu, drop_path_rate 0,
    # use_layer_scale True, layer_scale_init_value 1e-5, initializer_range 0.02, 1000 labels (patch_size / stride
    # 16 are unused by the model).
    return [PoolFormerConfig(
        num_channels=3,
        patch_size=16,
        stride=16,
        pool_size=3,
        mlp_ratio=4.0,
        depths=[2, 2, 6, 2],
        hidden_sizes=[64, 128, 320, 512],
        patch_sizes=[7, 3, 3, 3],
        strides=[4, 2, 2, 2],
        padding=[2, 1, 1, 1],
        num_encoder_blocks=4,
        drop_path_rate=0.0,
        hidden_act="gelu",
        use_layer_scale=True,
        layer_scale_init_value=1e-5,
        initializer_range=0.02,
        num_labels=1000,
    )]
