"""CvT (Convolutional vision Transformer): three stages, each opening with a convolutional token embedding (overlapping
strided conv 7x7/4, then 3x3/2, 3x3/2, + LayerNorm, no position embedding) followed by pre-norm transformer blocks whose
q / k / v come from convolutional projections (depthwise 3x3 conv + BatchNorm on the token map, stride 1 for q and
stride 2 for k and v, so keys and values are 4x fewer tokens, then a linear layer; attention scaled by the full
embed_dim^-0.5, not the head dim); the CLS token is appended only in the last stage and skips the conv projections
(concatenated to the projected q / k / v), after `microsoft/cvt-13`, shrunk.

CvtModel.
Shrunk: embed_dim (64, 192, 384) -> (16, 48, 96) (heads (1, 3, 6) kept: head_dim 64 -> 16), depth (1, 2, 10) ->
(1, 2, 3) (CvtStage indexes stage s's drop-path list by s, so stage s needs more than s blocks), image 224 x 224 ->
96 x 96 (token maps 56 / 28 / 14 -> 24 / 12 / 6 a side).
Input: pixel_values (2, 3, 96, 96). Outputs: last_hidden_state (2, 96, 6, 6) (the last stage's token map, channels
first) and cls_token_value (2, 1, 96). CvtModel has no pooler (the classifier's LayerNorm + head live in
CvtForImageClassification).
"""
import torch
from torch import nn
from transformers import CvtConfig, CvtModel

batch_size = 2
image_size = 96


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CvtModel(config)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.last_hidden_state, out.cls_token_value


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # microsoft/cvt-13 config.json. Kept: patch_sizes (7, 3, 3), patch_stride (4, 2, 2), patch_padding (2, 1, 1),
    # num_heads (1, 3, 6), mlp_ratio 4, qkv_bias, cls_token only in stage 3, qkv_projection_method dw_bn,
    # kernel_qkv 3, stride_q 1, stride_kv 2, padding 1, drop_path_rate (0, 0, 0.1), layer_norm_eps 1e-12.
    return [CvtConfig(
        embed_dim=[16, 48, 96],  # published [64, 192, 384]
        num_heads=[1, 3, 6],
        depth=[1, 2, 3],  # published [1, 2, 10]
    )]
