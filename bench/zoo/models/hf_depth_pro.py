"""Depth Pro (Bochkovskii et al. 2024, "Depth Pro: Sharp Monocular Metric Depth in Less Than a Second"): zero-shot
metric monocular depth from a multi-scale ViT. The input (4 x the ViT's native size) is resized to three scales
(x0.25, x0.5, x1); each scale is cut into ViT-sized square patches with F.unfold (1 patch, 3 x 3 patches with 50%
overlap, 5 x 5 patches with 25% overlap: 35 patches per image), and all patches of all scales go through ONE shared
DINOv2 patch encoder as a single batch. Per scale the patch tokens are reshaped to grids, the overlapping borders
trimmed and the patches stitched back into one feature map per image (merge_patches), then bilinearly resized; two
intermediate layers' outputs for the highest-scale patches are stitched the same way. A separate DINOv2 image encoder sees the
whole image resized to the ViT's native size (global context). A neck upsamples every map with 1x1 projections and
2x2 stride-2 transposed convs (one for the global map and for each scale, two and three for the two intermediate
maps), fuses the global map with the lowest scale (concat + 1x1 conv) and projects everything to the fusion width
with 3x3 convs; a DPT-style fusion stage (pre-activation residual conv units, transposed-conv upsampling, 1x1
projections) merges the five maps coarse to fine, and a conv head (3x3 conv, 2x transposed conv, 3x3 conv + ReLU,
1x1 conv + ReLU) gives the depth map at 2 x the finest resolution. A field-of-view branch (a third DINOv2 encoder on the resized image, a linear neck, plus the detached
global fusion features through a stride-2 conv, then stride-2 convs down to a 1 x 1 scalar) predicts the FOV used to
turn the canonical inverse depth into metric depth.

DepthProForDepthEstimation after `apple/DepthPro-hf` (three DINOv2 ViT-L/16 encoders at 384 px, 1536 px input,
use_fov_model True), shrunk.
Shrunk: ViT size (config.patch_size = each encoder's image_size) 384 -> 40, so the input 1536 -> 160 (the scales are
40 / 80 / 160 px, still 1 + 9 + 25 patches per image); DINOv2 patch 16 -> 8 (24 x 24 token grid -> 5 x 5); DINOv2
hidden 1024 -> 128, 16 heads -> 2 (head dim 64 kept), 24 layers -> 4 (patch encoder) / 2 (image and FOV encoders);
intermediate_hook_ids [11, 5] -> [1, 0] (the same relative depths: half and a quarter of the patch encoder);
scaled_images_feature_dims [1024, 1024, 512] -> [128, 128, 64], intermediate_feature_dims [256, 256] -> [64, 64],
fusion_hidden_size 256 -> 64. Kept: scaled_images_ratios [0.25, 0.5, 1], overlap ratios [0, 0.5, 0.25],
merge_padding_value 3 (capped by the library at a quarter of the 5-token patch grid, i.e. 1), 2 FOV head layers, fusion
residual units without batch norm and with biases, DINOv2 mlp_ratio 4 / LayerScale 1.0 / use_mask_token False.
Input: pixel_values (2, 3, 160, 160) (normalized to [-1, 1] as DepthProImageProcessor does).
Outputs: predicted_depth (2, 320, 320), field_of_view (2,). (The depth map is 64 x the ViT token grid: the input size
when published (24 x 24 tokens, 1536 px); here 2 x the input, since the smaller DINOv2 patch gives a 5 x 5 grid.)
"""
import torch
from torch import nn
from transformers import DepthProConfig, DepthProForDepthEstimation, Dinov2Config

batch_size = 2
vit_size = 40  # published 384 (DepthProConfig.patch_size = the DINOv2 encoders' image_size)
image_size = 4 * vit_size  # published 1536


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DepthProForDepthEstimation(config)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.predicted_depth, out.field_of_view


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size) * 2.0 - 1.0]


def _dinov2(num_hidden_layers):
    # apple/DepthPro-hf sub-configs (image / patch / fov encoders): dinov2, hidden 1024, 24 layers, 16 heads,
    # patch 16, image_size 384, use_mask_token False; DINOv2 defaults otherwise (mlp_ratio 4, gelu, LayerScale 1.0,
    # qkv bias, layer_norm_eps 1e-6, no SwiGLU).
    return Dinov2Config(
        hidden_size=128,  # published 1024
        num_hidden_layers=num_hidden_layers,  # published 24
        num_attention_heads=2,  # published 16
        mlp_ratio=4,
        image_size=vit_size,  # published 384
        patch_size=8,  # published 16
        use_mask_token=False,
    )


def get_init_inputs():
    # apple/DepthPro-hf config.json. Kept: scaled_images_ratios, scaled_images_overlap_ratios, merge_padding_value 3,
    # use_fov_model True, num_fov_head_layers 2, use_batch_norm_in_fusion_residual False, use_bias_in_fusion_residual
    # True.
    return [DepthProConfig(
        patch_size=vit_size,  # published 384
        fusion_hidden_size=64,  # published 256
        intermediate_hook_ids=[1, 0],  # published [11, 5]
        intermediate_feature_dims=[64, 64],  # published [256, 256]
        scaled_images_ratios=[0.25, 0.5, 1],
        scaled_images_overlap_ratios=[0.0, 0.5, 0.25],
        scaled_images_feature_dims=[128, 128, 64],  # published [1024, 1024, 512]
        merge_padding_value=3,
        use_batch_norm_in_fusion_residual=False,
        use_bias_in_fusion_residual=True,
        use_fov_model=True,
        num_fov_head_layers=2,
        patch_model_config=_dinov2(4),  # published 24 layers
        image_model_config=_dinov2(2),  # published 24 layers
        fov_model_config=_dinov2(2),  # published 24 layers
    )]
