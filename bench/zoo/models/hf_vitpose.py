"""ViTPose top-down human pose estimator, "simple" decoder variant (a plain ViT backbone on a person crop: 16 x 16
patch embedding conv with padding 2, no CLS token but the CLS position embedding added to every patch token together
with its own learned position embedding; pre-norm encoder layers with a GELU MLP; the last layer's tokens LayerNormed
and reshaped to the 16 x 12 patch grid; simple decoder: ReLU, 4x bilinear upsampling and one 3 x 3 conv to one
heatmap per COCO keypoint), after `usyd-community/vitpose-base-simple`, shrunk.

VitPoseForPoseEstimation with a VitPoseBackbone (num_experts 1: plain MLPs, no dataset_index).
Shrunk: hidden 768 -> 128, 12 layers -> 2 (out_indices [12] -> [2]: still the last layer feeds the head), 12 heads
-> 4 (head size 64 -> 32). Kept: input crop 256 x 192 (16 x 12 patches), patch 16, mlp_ratio 4, qkv bias, gelu,
layer_norm_eps 1e-12, scale_factor 4, 17 keypoints.
Input: pixel_values (2, 3, 256, 192): two person crops, as VitPoseImageProcessor returns them (each box affinely
warped to 256 x 192, so the batch has no padding and no mask).
Output: heatmaps (2, 17, 64, 48).
"""
import torch
from torch import nn
from transformers import VitPoseBackboneConfig, VitPoseConfig, VitPoseForPoseEstimation

batch_size = 2
height, width = 256, 192
num_keypoints = 17


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VitPoseForPoseEstimation(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).heatmaps


def get_inputs():
    return [torch.randn(batch_size, 3, height, width)]


def get_init_inputs():
    # usyd-community/vitpose-base-simple config.json. Kept: image_size (256, 192), patch_size (16, 16), mlp_ratio 4,
    # num_experts 1, gelu, qkv_bias, layer_norm_eps 1e-12, dropout 0, initializer_range 0.02, use_simple_decoder True,
    # scale_factor 4, 17 COCO keypoint labels.
    backbone_config = VitPoseBackboneConfig(
        image_size=[height, width],
        patch_size=[16, 16],
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        mlp_ratio=4,
        out_indices=[2],  # published [12]
    )
    return [VitPoseConfig(
        backbone_config=backbone_config,
        use_simple_decoder=True,
        scale_factor=4,
        num_labels=num_keypoints,
    )]
