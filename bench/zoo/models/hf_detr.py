"""DETR object detector (ResNet backbone with frozen BatchNorm -> 1x1 projection -> transformer encoder with sine
position embeddings and a padding mask -> decoder over learned object queries -> class and box heads), after
`facebook/detr-resnet-50`, shrunk, with the transformers ResNet backbone (use_timm_backbone=False) instead of timm.

Backbone: ResNet-50 (bottleneck, depths 3,4,6,3, widths 256..2048, stem 64) -> bottleneck ResNet with depths
1,1,1,1, widths 32,64,128,256, stem 16; the last stage (stride 32) feeds the transformer.
Transformer: d_model 256 -> 64, 6+6 layers -> 2+2, 8 heads -> 4, ffn 2048 -> 256. Kept: 100 queries, 91 COCO
classes (+ no-object), sine position embedding, relu.
Inputs: pixel_values (2, 3, 128, 160) and pixel_mask (2, 128, 160): the second image is 128 pixels wide and was
zero-padded at its right border to the batch width, as DetrImageProcessor pads. Outputs: logits (2, 100, 92),
pred_boxes (2, 100, 4).
"""
import torch
from torch import nn
from transformers import DetrConfig, DetrForObjectDetection, ResNetConfig

batch_size = 2
height, width = 128, 160
padded_width = 32  # second image is 128 x 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DetrForObjectDetection(config)

    def forward(self, pixel_values, pixel_mask):
        out = self.model(pixel_values=pixel_values, pixel_mask=pixel_mask)
        return out.logits, out.pred_boxes


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, height, width)
    pixel_mask = torch.ones(batch_size, height, width, dtype=torch.long)
    pixel_values[1, :, :, -padded_width:] = 0.0
    pixel_mask[1, :, -padded_width:] = 0
    return [pixel_values, pixel_mask]


def get_init_inputs():
    # facebook/detr-resnet-50 config.json. Kept: num_queries 100, 91 labels, sine position embedding,
    # relu, post-norm transformer layers, dilation False, auxiliary_loss False.
    backbone_config = ResNetConfig(
        embedding_size=16,  # published 64
        hidden_sizes=(32, 64, 128, 256),  # published (256, 512, 1024, 2048)
        depths=(1, 1, 1, 1),  # published (3, 4, 6, 3)
        layer_type="bottleneck",
        hidden_act="relu",
        out_features=["stage4"],
    )
    return [DetrConfig(
        use_timm_backbone=False,
        backbone_config=backbone_config,
        d_model=64,  # published 256
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=4,  # published 8
        decoder_attention_heads=4,  # published 8
        encoder_ffn_dim=256,  # published 2048
        decoder_ffn_dim=256,  # published 2048
        num_queries=100,
        num_labels=91,
        position_embedding_type="sine",
        activation_function="relu",
        dilation=False,
        auxiliary_loss=False,
    )]
