"""LW-DETR object detector (real-time DETR: a plain ViT encoder whose blocks alternate window attention and
window-major global attention, CAE layer-scale gammas, multi-level ViT features concatenated and fused by a
YOLOv8-style C2f projector, two-stage query selection, then a shallow decoder with multi-scale deformable
cross-attention and box refinement), after `AnnaZhang/lwdetr_small_60e_coco`, shrunk.

Shrunk: ViT hidden 192 -> 128, 10 layers -> 4 (window blocks [0, 1, 3, 6, 7, 9] -> [0, 2], the others global),
out_indices [2, 4, 5, 9] -> [2, 4], 12 heads -> 4, image 1024 -> 128, pretrain_image_size 224 -> 64,
num_windows 16 -> 4 (2x2 windows of 4x4 patches); d_model 256 -> 128, decoder 3 layers -> 2, decoder_ffn 2048 -> 256,
self-attn heads 8 -> 4, cross-attn heads 16 -> 8, num_queries 300 -> 50, group_detr 13 -> 1 (the extra Group-DETR
query groups are training-only: inference uses group 0 alone, so more groups would only add unused weights).
Inputs: pixel_values (2, 3, 128, 128) (no pixel_mask: all pixels valid).
Output: (logits (2, 50, 91), pred_boxes (2, 50, 4) as normalized cx, cy, w, h).
"""
import torch
from torch import nn
from transformers import LwDetrConfig, LwDetrForObjectDetection, LwDetrViTConfig

batch_size = 2
image_size = 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LwDetrForObjectDetection(config)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.logits, out.pred_boxes


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    return [pixel_values]


def get_init_inputs():
    # AnnaZhang/lwdetr_small_60e_coco config.json (LW-DETR small: vit_tiny encoder, projector P4, 2 sampling points).
    # Kept: patch 16, mlp_ratio 4, CAE gammas 0.1, projector_scale_factors [1.0] (P4), c2f 3 blocks, silu projector,
    # relu decoder, decoder_n_points 2, 91 COCO labels.
    backbone_config = LwDetrViTConfig(
        hidden_size=128,  # published 192
        num_hidden_layers=4,  # published 10
        num_attention_heads=4,  # published 12
        image_size=image_size,  # published 1024
        pretrain_image_size=64,  # published 224
        patch_size=16,
        window_block_indices=[0, 2],  # published [0, 1, 3, 6, 7, 9]
        out_indices=[2, 4],  # published [2, 4, 5, 9]
        num_windows=4,  # published 16
    )
    return [LwDetrConfig(
        backbone_config=backbone_config,
        projector_scale_factors=[1.0],  # published [1.0] (P4)
        d_model=128,  # published 256
        decoder_layers=2,  # published 3
        decoder_ffn_dim=256,  # published 2048
        decoder_self_attention_heads=4,  # published 8
        decoder_cross_attention_heads=8,  # published 16
        decoder_n_points=2,  # published 2
        num_queries=50,  # published 300
        group_detr=1,  # published 13 (training-only groups)
        num_labels=91,  # published 91 (COCO)
    )]
