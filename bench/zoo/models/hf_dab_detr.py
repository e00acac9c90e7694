"""DAB-DETR object detector (Liu et al. 2022, "DAB-DETR: Dynamic Anchor Boxes are Better Queries for DETR"): a ResNet
backbone with frozen BatchNorm -> 1x1 projection -> post-norm transformer encoder whose sine position embedding
(temperature 20 in height and width) is scaled per token by an MLP of the current features, using the padding mask;
the decoder's queries are dynamic anchor boxes: a learned (cx, cy, w, h) per query (inverse-sigmoid space), turned
each layer into a 4 x 128 sine embedding, an MLP of which gives the positional query (self-attention: content +
position projections added; first-layer cross-attention: added to the content query too), while the x / y part,
scaled elementwise by an MLP of the decoder state (conditional spatial query, from the second layer on) and
modulated by the ratio of a predicted reference width / height to the anchor's width / height (width- and
height-modulated positional attention), is concatenated per head to the content query (cross-attention keys:
content concatenated with the image sine embedding, so head size doubles in the logits); after every layer the
shared box MLP refines the anchors in logit space (iterative update, detached between layers); PReLU FFNs; class head
with sigmoid (focal-loss) scores, box head adding offsets to the last anchors in logit space), after
`IDEA-Research/dab-detr-resnet-50`, shrunk, with the transformers ResNet backbone (use_timm_backbone=False, built with
random weights from `backbone_config`, nothing downloaded) instead of timm's.

DabDetrForObjectDetection. Backbone: ResNet-50 (bottleneck, depths 3,4,6,3, widths 256..2048, stem 64) -> bottleneck
ResNet with depths 1,1,1,1, widths 32,64,128,256, stem 16; the last stage (stride 32) feeds the transformer.
Transformer: hidden 256 -> 64, 6+6 layers -> 2+2 (the first decoder layer, which adds the positional query to the
cross-attention content, and a later one, which does not, are both kept), 8 heads -> 4 (head size 32 -> 16), ffn
2048 -> 256, 300 queries -> 100. Kept: 91 COCO label slots, query_dim 4, temperatures 20 / 20, prelu, keep_query_pos
False, num_patterns 0, random_refpoints_xy False, normalize_before False.
Inputs: pixel_values (2, 3, 128, 160) and pixel_mask (2, 128, 160): the second image is 128 x 128 and was zero-padded
at its right border to the batch width, as DabDetrImageProcessor pads (stride-32 grid 4 x 5 = 20 tokens, the last
column masked for the second image).
Output: (logits (2, 100, 91) (scored with a sigmoid, no "no-object" class), pred_boxes (2, 100, 4) (normalized cx,
cy, w, h)). The layers outside the backbone are re-initialized (see Model.__init__) so that the anchors and boxes are
not all the image center.
"""
import torch
from torch import nn
from transformers import DabDetrConfig, DabDetrForObjectDetection, ResNetConfig

batch_size = 2
height, width = 128, 160
padded_width = 32  # the second image is 128 x 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DabDetrForObjectDetection(config)
        # transformers initializes every linear, conv and embedding outside the backbone (He-initialized already) with
        # N(0, init_std = 0.02) and zeroes the box MLP's last layer: the learned anchors are then all ~(0.5, 0.5, 0.5,
        # 0.5) and the box refinement is exactly 0, so every predicted box is the image center whatever the image.
        # Stand in for trained weights with the modules' PyTorch default initialization (what the original DAB-DETR
        # code leaves on its anchors: nn.Embedding's N(0, 1)) on everything outside the backbone.
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
    pixel_values[1, :, :, -padded_width:] = 0.0
    pixel_mask[1, :, -padded_width:] = 0
    return [pixel_values, pixel_mask]


def get_init_inputs():
    # IDEA-Research/dab-detr-resnet-50 config.json. Kept: 91 labels, query_dim 4, temperature_height /
    # temperature_width 20, prelu, keep_query_pos False, num_patterns 0, random_refpoints_xy False,
    # normalize_before False, sine_position_embedding_scale None (2 pi), dilation False, auxiliary_loss False,
    # dropout 0.1 (inactive in eval), attention / activation dropout 0, init_std 0.02, init_xavier_std 1.0.
    backbone_config = ResNetConfig(
        embedding_size=16,  # published 64
        hidden_sizes=(32, 64, 128, 256),  # published (256, 512, 1024, 2048)
        depths=(1, 1, 1, 1),  # published (3, 4, 6, 3)
        layer_type="bottleneck",
        hidden_act="relu",
        out_features=["stage4"],
    )
    return [DabDetrConfig(
        use_timm_backbone=False,
        backbone_config=backbone_config,
        num_queries=100,  # published 300
        hidden_size=64,  # published 256
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=4,  # published 8
        decoder_attention_heads=4,  # published 8
        encoder_ffn_dim=256,  # published 2048
        decoder_ffn_dim=256,  # published 2048
        activation_function="prelu",
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        init_std=0.02,
        init_xavier_std=1.0,
        auxiliary_loss=False,
        dilation=False,
        temperature_height=20,
        temperature_width=20,
        query_dim=4,
        random_refpoints_xy=False,
        keep_query_pos=False,
        num_patterns=0,
        normalize_before=False,
        sine_position_embedding_scale=None,
        num_labels=91,
    )]
