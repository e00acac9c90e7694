"""DPT (Dense Prediction Transformer) for monocular depth: a plain ViT backbone (not the hybrid ResNet variant)
whose hidden states at four depths are reassembled into a multi-scale pyramid (readout "project" of the CLS token,
resample by factors 4 / 2 / 1 / 0.5), fused bottom-up by residual conv units with x2 upsampling, and decoded by
a conv head to a per-pixel depth map, after `Intel/dpt-large`, shrunk.

DPTForDepthEstimation, is_hybrid False.
Shrunk: hidden 1024 -> 64, 24 layers -> 4, 16 heads -> 4, intermediate 4096 -> 256, backbone_out_indices
(5, 11, 17, 23) -> (0, 1, 2, 3) (every 6th layer -> every layer), neck_hidden_sizes (256, 512, 1024, 1024) ->
(16, 32, 64, 64), fusion_hidden_size 256 -> 32, image 384 x 384 -> 64 x 64 (patch 16 kept: 4 x 4 patches + CLS).
Input: pixel_values (2, 3, 64, 64).
Output: predicted_depth (2, 64, 64), non-negative (final ReLU). The neck and head convs are re-initialized (see
Model.__init__) so that the random-weight depth map is around 1 instead of ~1e-7 and mostly clipped to 0.
"""
import torch
from torch import nn
from transformers import DPTConfig, DPTForDepthEstimation

batch_size = 2
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DPTForDepthEstimation(config)
        # DPT initializes every conv with N(0, 0.02). At these shrunk widths (fan-in 9 x 32 instead of 9 x 256) each
        # conv of the neck and head scales the signal down ~3x, and the depth map comes out ~1e-7 and 80% zero
        # after the final ReLU. Stand in for trained weights: He-initialize the neck and head convs except the last
        # 1x1 conv (32 -> 1), which keeps its N(0, 0.02) weights and gets a bias of 1, so that the depth map is
        # positive almost everywhere (as a trained head's), around 1, instead of half clipped to 0 by the ReLU.
        last_conv = self.model.head.head[-2]
        for part in (self.model.neck, self.model.head):
            for module in part.modules():
                if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d)) and module is not last_conv:
                    nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
                    if module.bias is not None:
                        nn.init.zeros_(module.bias)
        nn.init.ones_(last_conv.bias)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).predicted_depth


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # Intel/dpt-large config.json. Kept: is_hybrid False, patch 16, qkv_bias, gelu, layer_norm_eps 1e-12,
    # readout_type "project", reassemble_factors (4, 2, 1, 0.5), head_in_index -1, no batch norm in the fusion
    # residual units, add_projection False.
    return [DPTConfig(
        hidden_size=64,  # published 1024
        num_hidden_layers=4,  # published 24
        num_attention_heads=4,  # published 16
        intermediate_size=256,  # published 4096
        hidden_act="gelu",
        layer_norm_eps=1e-12,
        image_size=image_size,  # published 384
        patch_size=16,
        num_channels=3,
        is_hybrid=False,
        qkv_bias=True,
        backbone_out_indices=[0, 1, 2, 3],  # published [5, 11, 17, 23]
        readout_type="project",
        reassemble_factors=[4, 2, 1, 0.5],
        neck_hidden_sizes=[16, 32, 64, 64],  # published [256, 512, 1024, 1024]
        fusion_hidden_size=32,  # published 256
        head_in_index=-1,
        use_batch_norm_in_fusion_residual=False,
        add_projection=False,
    )]
