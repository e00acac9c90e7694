"""UperNet semantic segmenter on a ConvNeXt backbone (ConvNeXt: 4 x 4 stride-4 patchify stem + LayerNorm, four stages
of blocks (7 x 7 depthwise conv, channels-last LayerNorm, pointwise MLP 4x with GELU, layer scale, residual) with
LayerNorm + 2 x 2 stride-2 downsampling between stages, and a LayerNorm on each of the four stage outputs (strides 4,
8, 16, 32); UperNet head: a PSP module on the stride-32 map (adaptive average pools to 1, 2, 3, 6 bins, 1x1 conv +
BatchNorm + ReLU each, bilinearly upsampled back, concatenated with the map, 3x3 conv) as the top of an FPN (1x1
lateral convs on the stride 4-16 maps, top-down bilinear upsample-and-add, 3x3 conv on each level), all levels
upsampled to stride 4, concatenated, 3x3 conv, 1x1 classifier, bilinear upsampling to the input size; auxiliary FCN
head on the stride-16 map (3x3 conv + BN + ReLU, 1x1 classifier, upsampled), which the forward computes too (for the
training loss) but does not return), after `openmmlab/upernet-convnext-tiny`, shrunk.

UperNetForSemanticSegmentation with a ConvNextBackbone (nothing downloaded; random weights from `backbone_config`).
Backbone (ConvNeXt-T): hidden sizes (96, 192, 384, 768) -> (32, 64, 128, 256), depths (3, 3, 9, 3) -> (1, 1, 2, 1).
Head: hidden_size 512 -> 64, auxiliary_in_channels 384 -> 128 (the stage-3 width, as published), auxiliary_channels
256 -> 32. Kept: pool scales (1, 2, 3, 6), one auxiliary conv, no auxiliary input concat, 150 ADE20K classes, patch
4, gelu, layer_norm_eps 1e-12, layer_scale_init_value 1e-6, drop_path_rate 0.
Input: pixel_values (2, 3, 256, 256) (published: trained on 512 x 512 ADE20K crops; stage maps 64, 32, 16, 8 a side
here, 128 ... 16 there).
Output: logits (2, 150, 256, 256).
"""
import torch
from torch import nn
from transformers import ConvNextConfig, UperNetConfig, UperNetForSemanticSegmentation

batch_size = 2
image_size = 256  # published 512
num_labels = 150


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UperNetForSemanticSegmentation(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # openmmlab/upernet-convnext-tiny config.json. Kept: pool_scales (1, 2, 3, 6), use_auxiliary_head, one
    # auxiliary conv, auxiliary_concat_input False, auxiliary_loss_weight 0.4, loss_ignore_index 255,
    # initializer_range 0.02, 150 labels; ConvNeXt: patch_size 4, 4 stages, gelu, layer_norm_eps 1e-12,
    # layer_scale_init_value 1e-6, drop_path_rate 0, out_features stage1-stage4.
    backbone_config = ConvNextConfig(
        hidden_sizes=[32, 64, 128, 256],  # published [96, 192, 384, 768]
        depths=[1, 1, 2, 1],  # published [3, 3, 9, 3]
        out_features=["stage1", "stage2", "stage3", "stage4"],
    )
    return [UperNetConfig(
        backbone_config=backbone_config,
        hidden_size=64,  # published 512
        pool_scales=[1, 2, 3, 6],
        use_auxiliary_head=True,
        auxiliary_in_channels=128,  # published 384
        auxiliary_channels=32,  # published 256
        auxiliary_num_convs=1,
        auxiliary_concat_input=False,
        num_labels=num_labels,
    )]
