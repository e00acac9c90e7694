"""MaskFormer mask-classification segmenter (Swin backbone (MaskFormer's own port: patch-4 embedding, window attention
with relative position bias and a cyclic shift + region mask in every second block, feature maps zero-padded to a
multiple of the window, patch merging between stages; the four stage outputs at strides 4, 8, 16, 32 each get a
LayerNorm) -> pixel decoder: an FPN (3x3 conv + GroupNorm + ReLU stem on the stride-32 map, then top-down: 1x1 lateral
conv + GroupNorm, nearest upsampling and add, 3x3 conv + GroupNorm + ReLU) whose stride-4 map goes through a 3x3
conv to the per-pixel embeddings -> transformer module: the stride-32 backbone map, 1x1-projected, with a
normalized sine position embedding, is the memory of a DETR decoder (no encoder) whose 100 learned queries start at
zero and carry the query embedding as position (post-norm layers: self-attention, cross-attention, FFN; final
LayerNorm) -> heads: a linear class head (with a no-object class) and a 3-layer MLP mask embedding dotted (einsum)
with the per-pixel embeddings to give each query's mask logits), after `facebook/maskformer-swin-base-ade`, shrunk.

MaskFormerForInstanceSegmentation (the one MaskFormer head class; its outputs serve semantic, instance and panoptic
post-processing alike). The backbone is built with random weights from `backbone_config` (a SwinConfig, which
MaskFormer converts to its MaskFormerSwinConfig; nothing downloaded).
Backbone (Swin-B, 384): embed_dim 128 -> 32, depths (2, 2, 18, 2) -> (1, 1, 2, 1), heads (4, 8, 16, 32) -> (1, 2, 4,
8) (head size 32 kept), pretraining image_size 384 -> 192 (no absolute position embedding, so it only sizes the
config). Pixel decoder: fpn_feature_size and mask_feature_size 256 -> 64. DETR decoder: d_model 256 -> 64 (8 heads
kept: head size 32 -> 8), decoder_layers 6 -> 2, decoder_ffn_dim 2048 -> 128.
Kept: window 12, patch 4, mlp_ratio 4, 100 queries, 150 ADE20K classes (+ no-object), relu, GroupNorm 32 groups.
Inputs, as MaskFormerImageProcessor returns them (published: shortest edge 640 on ADE20K, padded to the batch's
largest size -> here 192 x 256): pixel_values (2, 3, 192, 256), the second image 192 x 192 and zero-padded at its
right border, and pixel_mask (2, 192, 256) marking that padding (MaskFormer accepts pixel_mask but does not use it).
Stage maps 48 x 64, 24 x 32, 12 x 16 and 6 x 8 (the last padded to 12 x 12 for its window).
Outputs: class_queries_logits (2, 100, 151), masks_queries_logits (2, 100, 48, 64) (at stride 4).
"""
import torch
from torch import nn
from transformers import DetrConfig, MaskFormerConfig, MaskFormerForInstanceSegmentation, SwinConfig

batch_size = 2
height, width = 192, 256
padded_width = 64  # the second image is 192 x 192
num_labels = 150


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MaskFormerForInstanceSegmentation(config)

    def forward(self, pixel_values, pixel_mask):
        out = self.model(pixel_values=pixel_values, pixel_mask=pixel_mask)
        return out.class_queries_logits, out.masks_queries_logits


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, height, width)
    pixel_mask = torch.ones(batch_size, height, width, dtype=torch.long)
    pixel_values[1, :, :, -padded_width:] = 0.0
    pixel_mask[1, :, -padded_width:] = 0
    return [pixel_values, pixel_mask]


def get_init_inputs():
    # facebook/maskformer-swin-base-ade config.json. Kept: Swin patch 4, window 12, mlp_ratio 4, gelu, qkv_bias,
    # drop_path_rate 0.3 (inactive in eval), no absolute position embedding, layer_norm_eps 1e-5, all four stages
    # out; DETR decoder 8 heads, relu, 100 queries, dropout 0.1 (inactive in eval), attention / activation dropout 0,
    # init_std 0.02, init_xavier_std 1.0; MaskFormer no_object_weight 0.1, dice / cross-entropy / mask weights
    # 1 / 1 / 20, use_auxiliary_loss False, 150 labels.
    backbone_config = SwinConfig(
        image_size=192,  # published 384
        patch_size=4,
        embed_dim=32,  # published 128
        depths=[1, 1, 2, 1],  # published [2, 2, 18, 2]
        num_heads=[1, 2, 4, 8],  # published [4, 8, 16, 32]
        window_size=12,
        mlp_ratio=4.0,
        qkv_bias=True,
        hidden_act="gelu",
        drop_path_rate=0.3,
        use_absolute_embeddings=False,
        out_features=["stage1", "stage2", "stage3", "stage4"],
    )
    decoder_config = DetrConfig(
        use_timm_backbone=False,
        num_queries=100,
        d_model=64,  # published 256
        decoder_layers=2,  # published 6
        decoder_attention_heads=8,
        decoder_ffn_dim=128,  # published 2048
        encoder_layers=2,  # published 6 (DETR's encoder is not built by MaskFormer)
        encoder_attention_heads=8,
        encoder_ffn_dim=128,  # published 2048
        activation_function="relu",
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        init_std=0.02,
        init_xavier_std=1.0,
    )
    return [MaskFormerConfig(
        backbone_config=backbone_config,
        decoder_config=decoder_config,
        fpn_feature_size=64,  # published 256
        mask_feature_size=64,  # published 256
        no_object_weight=0.1,
        use_auxiliary_loss=False,
        num_labels=num_labels,
    )]
