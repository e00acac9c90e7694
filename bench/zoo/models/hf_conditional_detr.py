"""Conditional DETR object detector (ResNet backbone with frozen BatchNorm -> 1x1 projection -> post-norm transformer
encoder with sine position embeddings and the padding mask -> decoder whose cross-attention is "conditional": the
content and spatial parts of queries / keys are concatenated per head instead of added, the spatial query being the
sine embedding of a reference point (a sigmoid of a linear map of each learned query position) scaled elementwise by a
transformation predicted from the decoder embedding; class head with sigmoid (focal-loss) scores, box head predicting
offsets added to the reference point in logit space), after `microsoft/conditional-detr-resnet-50`, shrunk, with the
transformers ResNet backbone (use_timm_backbone=False, built with random weights from `backbone_config`, nothing
downloaded) instead of timm's.

ConditionalDetrForObjectDetection. Backbone: ResNet-50 (bottleneck, depths 3,4,6,3, widths 256..2048, stem 64) ->
bottleneck ResNet with depths 1,1,1,1, widths 32,64,128,256, stem 16; the last stage (stride 32) feeds the
transformer. Transformer: d_model 256 -> 64, 6+6 layers -> 2+2, 8 heads -> 4 (head size 32 -> 16), ffn 2048 -> 256,
300 queries -> 100. Kept: 91 COCO label slots, sine position embedding, relu, dilation False.
Inputs: pixel_values (2, 3, 128, 160) and pixel_mask (2, 128, 160): the second image is 96 x 128 and was
zero-padded at its right and bottom borders to the batch size, as DetrImageProcessor (ConditionalDetrImageProcessor)
pads.
Output: (logits (2, 100, 91) (scored with a sigmoid, no "no-object" class), pred_boxes (2, 100, 4) (normalized
cx, cy, w, h)). The layers outside the backbone are re-initialized (see Model.__init__) so that the boxes are not
all the image center.
"""
import torch
from torch import nn
from transformers import ConditionalDetrConfig, ConditionalDetrForObjectDetection, ResNetConfig

batch_size = 2
height, width = 128, 160
padded_height, padded_width = 32, 32  # the second image is 96 x 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ConditionalDetrForObjectDetection(config)
        # transformers initializes every linear, conv and embedding outside the backbone (He-initialized already) with
        # N(0, init_std = 0.02): the reference-point MLP then maps the learned query positions to ~0 (every reference
        # point at the image center) and the box MLP outputs ~0, so every predicted box is (0.5, 0.5, 0.5, 0.5) to
        # 1e-3 whatever the image. Stand in for trained weights with the modules' PyTorch default initialization (what
        # the original Conditional DETR code leaves on its heads; its query embedding is nn.Embedding's N(0, 1)).
        backbone = set(self.model.model.backbone.modules())
        for module in self.model.modules():
            if module not in backbone and isinstance(module, (nn.Linear, nn.Conv2d, nn.Embedding)):
                module.reset_parameters()

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
    # microsoft/conditional-detr-resnet-50 config.json. Kept: 91 labels, sine position embedding, relu, post-norm
    # layers, dilation False, auxiliary_loss False, dropout 0.1 (inactive in eval), attention / activation dropout 0,
    # init_std 0.02, init_xavier_std 1.0.
    backbone_config = ResNetConfig(
        embedding_size=16,  # published 64
        hidden_sizes=(32, 64, 128, 256),  # published (256, 512, 1024, 2048)
        depths=(1, 1, 1, 1),  # published (3, 4, 6, 3)
        layer_type="bottleneck",
        hidden_act="relu",
        out_features=["stage4"],
    )
    return [ConditionalDetrConfig(
        use_timm_backbone=False,
        backbone_config=backbone_config,
        num_channels=3,
        num_queries=100,  # published 300
        d_model=64,  # published 256
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=4,  # published 8
        decoder_attention_heads=4,  # published 8
        encoder_ffn_dim=256,  # published 2048
        decoder_ffn_dim=256,  # published 2048
        activation_function="relu",
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        init_std=0.02,
        init_xavier_std=1.0,
        auxiliary_loss=False,
        position_embedding_type="sine",
        dilation=False,
        num_labels=91,
    )]
