"""RT-DETRv2 real-time detector (ResNet-vd backbone: 3-conv deep stem, basic blocks whose strided shortcuts are
avg-pool + 1x1 conv, frozen BatchNorm; hybrid encoder: 1x1 conv + BN projections of the stride 8 / 16 / 32 maps, one
AIFI transformer layer (self-attention with 2D sin-cos position embedding) on the stride-32 map only, then a CCFM
top-down FPN / bottom-up PAN of conv + BN + SiLU and CSP-RepVGG blocks; query selection: an encoder head scores every
token of the three levels (anchors generated for the input size, invalid border anchors masked) and the top-k tokens
become the decoder queries and reference boxes; decoder layers: self-attention, RT-DETRv2's multi-scale deformable
cross-attention and an FFN, with iterative box refinement), after `PekingU/rtdetr_v2_r18vd`, shrunk, run with
RT-DETRv2's discrete sampling operator.

RTDetrV2ForObjectDetection, 80 COCO classes as published. The backbone is built from its config with random weights
(AutoBackbone.from_config -> RTDetrResNetBackbone, nothing downloaded). What v2 changes in the decoder's
cross-attention: the sampling offsets are predicted per level and point (n_levels * n_points per head), scaled by
1 / n_points of their level, by the reference box's width / height and by decoder_offset_scale 0.5 around the box
center; and decoder_method "discrete" (RT-DETRv2's deployment option, the published checkpoint uses "default", i.e.
grid_sample) replaces bilinear grid_sample by rounding each sampling location to an integer pixel of its level
(x * W + 0.5 truncated to int64, clamped to the map) and gathering the value there by advanced indexing. The
transformers port takes one decoder_n_points for every level (the paper's per-level point counts are not exposed).
Shrunk: backbone hidden_sizes (64, 128, 256, 512) -> (32, 64, 128, 256), depths (2, 2, 2, 2) -> (1, 1, 1, 1),
embedding_size 64 -> 32; encoder_in_channels (128, 256, 512) -> (64, 128, 256); d_model / encoder_hidden_dim 256 ->
128, encoder_ffn_dim / decoder_ffn_dim 1024 -> 256 (8 heads kept, head size 32 -> 16), num_queries 300 -> 100,
image 640 x 640 -> 160 x 160 (levels 20 x 20, 10 x 10 and 5 x 5: 525 tokens instead of 8400).
Kept: 3 decoder layers, 3 decoder levels, 4 sampling points per level and head, offset scale 0.5.
Input: pixel_values (2, 3, 160, 160) (RT-DETR's processor only rescales to [0, 1], no mean / std).
Output: (logits (2, 100, 80) (per-class logits, scored with a sigmoid), pred_boxes (2, 100, 4) (normalized cx, cy,
w, h)). The encoder / decoder weights are re-initialized (see Model.__init__) so that the random-weight activations
do not vanish and no path is zeroed out.
"""
import math

import torch
from torch import nn
from transformers import RTDetrResNetConfig, RTDetrV2Config, RTDetrV2ForObjectDetection

batch_size = 2
image_size = 160  # published 640


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = RTDetrV2ForObjectDetection(config)
        # transformers initializes the encoder's and decoder's convs, linears and BatchNorm weights with
        # N(0, initializer_range = 0.01): with eval-mode BN statistics each 1x1 conv + BN scales the signal down ~10x
        # and the encoder output comes out ~1e-4; Deformable-DETR's init also zeroes the sampling-offset and
        # attention-weight projections (a fixed sampling grid and uniform weights whatever the query) and the last
        # layer of every box-refinement head (boxes never refined). Stand in for trained weights, outside the
        # backbone (He-initialized already): BatchNorm weight 1 / bias 0, convs He-normal (fan_out) as the backbone's,
        # linears PyTorch's default weight init (as the original RT-DETR leaves most of them); every bias keeps its
        # value (zeros, the class heads' prior-probability bias, the sampling grid).
        backbone = set(self.model.model.backbone.modules())
        for module in self.model.modules():
            if module in backbone:
                continue
            if isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(module, nn.Linear):
                nn.init.kaiming_uniform_(module.weight, a=math.sqrt(5))

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.logits, out.pred_boxes


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # PekingU/rtdetr_v2_r18vd config.json. Kept: basic-block ResNet-vd backbone (relu, out_features stage2-4 at
    # strides 8 / 16 / 32), frozen backbone BatchNorms, 1 AIFI encoder layer on the last level (encode_proj_layers
    # [2]), gelu encoder / silu CCFM / relu decoder activations, hidden_expansion 0.5, pos. temperature 10000,
    # post-norm, 8 heads, 3 feature levels, box refinement, no learned initial query, anchor_image_size / eval_size
    # null (anchors and position embeddings computed for the input size), num_denoising 100 (training only),
    # dropouts 0, layer_norm_eps / batch_norm_eps 1e-5, initializer_range 0.01; v2: decoder_n_levels 3,
    # decoder_n_points 4, decoder_offset_scale 0.5.
    backbone_config = RTDetrResNetConfig(
        num_channels=3,
        embedding_size=32,  # published 64
        hidden_sizes=[32, 64, 128, 256],  # published [64, 128, 256, 512]
        depths=[1, 1, 1, 1],  # published [2, 2, 2, 2]
        layer_type="basic",
        hidden_act="relu",
        downsample_in_first_stage=False,
        downsample_in_bottleneck=False,
        out_features=["stage2", "stage3", "stage4"],
    )
    return [RTDetrV2Config(
        backbone_config=backbone_config,
        freeze_backbone_batch_norms=True,
        initializer_range=0.01,
        layer_norm_eps=1e-5,
        batch_norm_eps=1e-5,
        encoder_hidden_dim=128,  # published 256
        encoder_in_channels=[64, 128, 256],  # published [128, 256, 512]
        feat_strides=[8, 16, 32],
        encoder_layers=1,
        encoder_ffn_dim=256,  # published 1024
        encoder_attention_heads=8,
        dropout=0.0,
        activation_dropout=0.0,
        encode_proj_layers=[2],
        positional_encoding_temperature=10000,
        encoder_activation_function="gelu",
        activation_function="silu",
        eval_size=None,
        normalize_before=False,
        hidden_expansion=0.5,
        d_model=128,  # published 256
        num_queries=100,  # published 300
        decoder_in_channels=[128, 128, 128],  # published [256, 256, 256]
        decoder_ffn_dim=256,  # published 1024
        num_feature_levels=3,
        decoder_n_points=4,
        decoder_layers=3,
        decoder_attention_heads=8,
        decoder_activation_function="relu",
        attention_dropout=0.0,
        num_denoising=100,
        label_noise_ratio=0.5,
        box_noise_scale=1.0,
        learn_initial_query=False,
        anchor_image_size=None,
        with_box_refine=True,
        decoder_n_levels=3,
        decoder_offset_scale=0.5,
        decoder_method="discrete",  # published "default" (grid_sample); "discrete" is RT-DETRv2's deployment operator
        num_labels=80,
    )]
