"""RF-DETR instance segmentation (Roboflow 2025, "RF-DETR: Neural Architecture Search for Real-Time Detection
Transformers", RfDetrForInstanceSegmentation, after the `Roboflow/rf-detr-base` config defaults), shrunk: a real-time
DETR whose encoder is a DINOv2 ViT run with WINDOWED attention, with a mask head on top of the detector.
  - Backbone: DINOv2 patch embedding (patch 14) + CLS + learned positions (bicubically interpolated, antialiased);
    the patch grid is cut into num_windows x num_windows windows, each window a separate sequence with its own copy
    of the CLS token. Layers attend inside their window, except those whose 0-based index equals a tapped stage
    number (layer 2 here; 2, 5, 8, 11 in the real model), which un-partition to one sequence per image (all windows
    and their CLS copies), attend globally, and re-partition. LayerScale on both residual branches, pre-LayerNorm.
    The tapped stages' outputs are layer-normalised, stitched back into (B, C, H, W) maps and concatenated.
  - Projector: a YOLOv8-style C2f (1 x 1 conv split, a chain of RepVGG-style 3 x 3 conv-BN-SiLU bottlenecks, concat,
    1 x 1 conv) and a channels-first LayerNorm, one feature level.
  - Two-stage query selection: every feature pixel is a proposal (cx, cy at its centre, w = h = 0.05), an
    enc_output Linear + LayerNorm, class and box heads; the top-k scoring proposals give reference boxes that refine
    the learned reference_point_embed (box deltas in logit space), while the content queries are learned query_feat.
  - Decoder: self-attention over queries (positional query from a sine embedding of the reference box through an
    MLP), single-level multi-scale deformable cross-attention (bilinear grid_sample at offsets predicted per head
    and point, softmax weights), ReLU FFN; class / box heads on the last layer.
  - Mask head: the projector map bilinearly resized to 1 / mask_downsample_ratio of the image, one ConvNeXt-style
    block per decoder layer (depthwise 3 x 3, LayerNorm, Linear, GELU, residual), a 1 x 1 projection, and per-query
    mask logits = (MLP-block(query) W) . pixel features + a learned bias.

Shrunk (from the class defaults): ViT hidden 384 -> 64, 12 layers -> 5, 6 heads -> 2, tapped stages 2/5/8/11 ->
2/5, image 518 -> 112 (8 x 8 patches), num_windows 4 -> 2 (2 x 2 windows of 4 x 4 patches); d_model 256 -> 64,
decoder 3 layers -> 2, FFN 2048 -> 128, self-attn heads 8 -> 4, cross-attn heads 16 -> 4, 300 queries -> 20,
group_detr 13 -> 1 (the extra Group-DETR query groups are training-only), mask MLP 1024 -> 128, 91 labels -> 10.
Kept: patch 14, 4 deformable points, c2f 3 blocks with expansion 0.5, silu projector, relu decoder, mask
downsample 4.
Inputs: pixel_values (2, 3, 112, 112), pixel_mask (2, 112, 112) all ones. Output: (logits (2, 20, 10), pred_boxes
(2, 20, 4) normalised cx, cy, w, h, pred_masks (2, 20, 28, 28)).
"""
import torch
from torch import nn
from transformers import RfDetrConfig, RfDetrDinov2Config, RfDetrForInstanceSegmentation

batch_size = 2
image_size = 112


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = RfDetrForInstanceSegmentation(config)

    def forward(self, pixel_values, pixel_mask):
        out = self.model(pixel_values=pixel_values, pixel_mask=pixel_mask)
        return out.logits, out.pred_boxes, out.pred_masks


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    pixel_mask = torch.ones(batch_size, image_size, image_size, dtype=torch.long)
    return [pixel_values, pixel_mask]


def get_init_inputs():
    # RfDetrConfig defaults (Roboflow/rf-detr-base: DINOv2-small windowed backbone), shrunk where commented.
    backbone_config = RfDetrDinov2Config(
        hidden_size=64,  # published 384
        num_hidden_layers=5,  # published 12 (the last tapped stage is the last layer here)
        num_attention_heads=2,  # published 6
        image_size=image_size,  # published 518
        patch_size=14,
        num_windows=2,  # published 4
        out_features=["stage2", "stage5"],  # published stage2 / 5 / 8 / 11
    )
    return [RfDetrConfig(
        backbone_config=backbone_config,
        d_model=64,  # published 256
        decoder_layers=2,  # published 3
        decoder_ffn_dim=128,  # published 2048
        decoder_self_attention_heads=4,  # published 8
        decoder_cross_attention_heads=4,  # published 16
        num_queries=20,  # published 300
        group_detr=1,  # published 13
        intermediate_size=128,  # published 1024
        num_labels=10,  # published 91
    )]
