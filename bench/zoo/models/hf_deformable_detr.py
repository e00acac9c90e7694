"""Deformable DETR object detector (ResNet backbone with frozen BatchNorm, three of its stages (strides 8, 16, 32)
projected to d_model by 1x1 conv + GroupNorm, plus a fourth level made by a stride-2 3x3 conv + GroupNorm on the last
stage (stride 64); each level's padding mask downsampled from pixel_mask, sine position embeddings plus a learned
per-level embedding; the levels are flattened into one sequence and refined by encoder layers of multi-scale
deformable self-attention: every token, from its reference point (its own normalized position, scaled by each
level's valid (unpadded) ratio), predicts per head 4 sampling offsets in each of the 4 levels and softmaxed weights
over the 16 samples, values bilinearly sampled with grid_sample (padded value tokens zeroed first) and summed; the
decoder's learned queries (query embedding split into a position and a content half) get a reference point from a
linear + sigmoid of their position half, then self-attention, deformable cross-attention to the encoder memory and an
FFN; post-norm layers; class head (sigmoid focal-loss scores, no no-object class) and a 3-layer box MLP whose center
outputs are added to the reference point in logit space), after `SenseTime/deformable-detr` (the base variant: 2-d
reference points, no iterative box refinement, no two-stage), shrunk, with the transformers ResNet backbone
(use_timm_backbone=False, built with random weights from `backbone_config`, nothing downloaded) instead of timm's
resnet50. The multi-scale deformable attention runs in its pure-PyTorch path (grid_sample per level; no custom kernel
is installed).

DeformableDetrForObjectDetection. Backbone: ResNet-50 (bottleneck, depths 3,4,6,3, widths 256..2048, stem 64) ->
bottleneck ResNet with depths 1,1,1,1, widths 32,64,128,256, stem 16; stages 2-4 (strides 8, 16, 32) feed the
transformer, as timm's out_indices (2, 3, 4) do. Transformer: d_model 256 -> 64 (8 heads kept: head size 32 -> 8),
6+6 layers -> 2+2, ffn 1024 -> 128, 300 queries -> 100. Kept: 4 feature levels, 4 sampling points per head and level
(encoder and decoder), 91 COCO label slots, sine position embedding, relu.
Inputs: pixel_values (2, 3, 128, 160) and pixel_mask (2, 128, 160): the second image is 96 x 128 and was zero-padded
at its right and bottom borders to the batch size, as DeformableDetrImageProcessor pads (levels: 16 x 20, 8 x 10,
4 x 5, 2 x 3 = 426 tokens).
Output: (logits (2, 100, 91) (scored with a sigmoid), pred_boxes (2, 100, 4) (normalized cx, cy, w, h)). The query
embedding and the box MLPs are re-initialized (see Model.__init__) so that the boxes are not all the image center.
"""
import torch
from torch import nn
from transformers import DeformableDetrConfig, DeformableDetrForObjectDetection, ResNetConfig

batch_size = 2
height, width = 128, 160
padded_height, padded_width = 32, 32  # the second image is 96 x 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DeformableDetrForObjectDetection(config)
        # transformers initializes the query embedding with N(0, init_std = 0.02), so the reference-point linear maps
        # every query to ~0 (every reference point at the image center), and the box MLP outputs ~0: every predicted
        # box comes out (0.5, 0.5, 0.5, 0.5) to 1e-3 whatever the image. Give the query embedding nn.Embedding's
        # N(0, 1), as the original Deformable DETR code leaves it (reference points spread over the image), and stand
        # in for trained box heads with the PyTorch default initialization of their linears (the original code
        # zero-initializes the last one, which would make every box its reference point with w = h = 0.5).
        self.model.model.query_position_embeddings.reset_parameters()
        for head in self.model.bbox_embed:
            for layer in head.layers:
                layer.reset_parameters()

    def forward(self, pixel_values, pixel_mask):
        out = self.model(pixel_values=pixel_values, pixel_mask=pixel_mask)
        return out.logits, out.pred_boxes


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, height, width)
    pixel_mask = torch.ones(batch_size, height, width, dtype=torch.long)
    pixel_values[1, :, -padded_height:, :] = 0.0
    pixel_values[1, :, :, -padded_width:] = 0.0
    pixel_mask[1, -padded_height:, :] = 0
    pixel_mask[1, :, -padded_width:] = 0
    return [pixel_values, pixel_mask]


def get_init_inputs():
    # SenseTime/deformable-detr config.json. Kept: 91 labels, 4 feature levels, encoder / decoder n_points 4,
    # two_stage False, with_box_refine False, sine position embedding, relu, dilation False, auxiliary_loss False,
    # dropout 0.1 (inactive in eval), attention / activation dropout 0, init_std 0.02, init_xavier_std 1.0,
    # max_position_embeddings 1024, disable_custom_kernels False.
    backbone_config = ResNetConfig(
        embedding_size=16,  # published 64
        hidden_sizes=(32, 64, 128, 256),  # published (256, 512, 1024, 2048)
        depths=(1, 1, 1, 1),  # published (3, 4, 6, 3)
        layer_type="bottleneck",
        hidden_act="relu",
        out_features=["stage2", "stage3", "stage4"],
    )
    return [DeformableDetrConfig(
        use_timm_backbone=False,
        backbone_config=backbone_config,
        num_channels=3,
        num_queries=100,  # published 300
        d_model=64,  # published 256
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=8,
        decoder_attention_heads=8,
        encoder_ffn_dim=128,  # published 1024
        decoder_ffn_dim=128,  # published 1024
        activation_function="relu",
        num_feature_levels=4,
        encoder_n_points=4,
        decoder_n_points=4,
        two_stage=False,
        with_box_refine=False,
        position_embedding_type="sine",
        num_labels=91,
    )]
