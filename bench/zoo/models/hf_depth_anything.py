"""Depth Anything V2 monocular relative depth: a DINOv2 ViT backbone (patch 14, CLS token, learned position
embeddings bicubically interpolated from the 37 x 37 pretraining grid to the input's patch grid, LayerScale, the final
LayerNorm applied to each tapped layer's output) tapped at four evenly spaced depths; a DPT-style neck drops the CLS
token ("ignore" readout), reassembles each tap into a map (1x1 projection, then x4 / x2 transposed-conv upsampling,
identity, or a stride-2 3x3 conv), 3x3 convs to the fusion width, and fuses coarse to fine: each fusion step adds a
pre-activation residual conv unit of the next map to the running map, applies a second unit, bilinearly resizes to
the next finer map (the last step: x2) and applies a 1x1 conv; the head (3x3 conv halving the width, bilinear resize
to patch grid x 14 = the input size, 3x3 conv + ReLU, 1x1 conv + ReLU) gives non-negative relative depth, after
`depth-anything/Depth-Anything-V2-Small-hf`, shrunk.

DepthAnythingForDepthEstimation with a Dinov2Config backbone.
Backbone (DINOv2-S): hidden 384 -> 96 (6 heads kept: head_dim 64 -> 16), 12 layers -> 4, out_indices (3, 6, 9, 12)
-> (1, 2, 3, 4) (every 3rd layer -> every layer). Neck / head: reassemble_hidden_size 384 -> 96, neck_hidden_sizes
(48, 96, 192, 384) -> (12, 24, 48, 96), fusion_hidden_size 64 -> 16, head_hidden_size 32 -> 8.
Kept: backbone image_size 518 (so the 37 x 37 position table is interpolated, as for every real input), patch 14,
reassemble factors (4, 2, 1, 0.5), relative depth (ReLU head).
Input: pixel_values (2, 3, 84, 112) (the published DPTImageProcessor resizes toward 518 x 518 keeping the aspect ratio,
both sides multiples of 14: a 480 x 640 photo becomes 518 x 686; here a 6 x 8 patch grid).
Output: predicted_depth (2, 84, 112), non-negative. The neck and head convs are re-initialized (see Model.__init__)
so that the random-weight depth map is around 1 instead of ~1e-8 and mostly clipped to 0.
"""
import torch
from torch import nn
from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config

batch_size = 2
height, width = 84, 112
patch_size = 14


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DepthAnythingForDepthEstimation(config)
        # The neck and head convs are initialized N(0, 0.02). At these shrunk widths each conv scales the signal down
        # several times, and the depth map comes out ~1e-8 and mostly zero after the final ReLU. Stand in for trained
        # weights, as hf_dpt does: He-initialize the neck and head convs except the last 1x1 conv (8 -> 1). The
        # activations entering that conv are then ~30 (the residual fusion units add up), so it gets N(0, 0.005)
        # weights (N(0, 0.02) would shift the map by ~+-2 and the ReLU would clip half of it for some seeds) and a
        # bias of 1: the depth map is positive almost everywhere (as a trained head's) and around 1.
        last_conv = self.model.head.conv3
        for part in (self.model.neck, self.model.head):
            for module in part.modules():
                if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d)) and module is not last_conv:
                    nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
                    if module.bias is not None:
                        nn.init.zeros_(module.bias)
        nn.init.normal_(last_conv.weight, std=0.005)
        nn.init.ones_(last_conv.bias)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).predicted_depth


def get_inputs():
    return [torch.randn(batch_size, 3, height, width)]


def get_init_inputs():
    # depth-anything/Depth-Anything-V2-Small-hf config.json. Kept: DINOv2 image_size 518, patch 14, mlp_ratio 4,
    # gelu, layerscale 1.0, layer_norm_eps 1e-6, reshape_hidden_states False (the neck reshapes); reassemble_factors
    # (4, 2, 1, 0.5), head_in_index -1, depth_estimation_type "relative".
    backbone_config = Dinov2Config(
        hidden_size=96,  # published 384
        num_hidden_layers=4,  # published 12
        num_attention_heads=6,
        image_size=518,
        patch_size=patch_size,
        out_indices=[1, 2, 3, 4],  # published [3, 6, 9, 12]
        reshape_hidden_states=False,
    )
    return [DepthAnythingConfig(
        backbone_config=backbone_config,
        patch_size=patch_size,
        reassemble_hidden_size=96,  # published 384
        neck_hidden_sizes=[12, 24, 48, 96],  # published [48, 96, 192, 384]
        fusion_hidden_size=16,  # published 64
        head_hidden_size=8,  # published 32
        depth_estimation_type="relative",
    )]
