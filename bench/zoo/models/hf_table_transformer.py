"""Table Transformer table detector (DETR with pre-norm transformer layers: a ResNet-18 backbone with frozen BatchNorm,
its stride-32 map 1x1-projected to d_model, sine position embeddings masked by the padding, a transformer encoder
whose layers normalize before self-attention and before the FFN, with a final encoder LayerNorm, a decoder over
learned object queries (queries start at zero and carry the query embedding as position; pre-norm self-attention,
cross-attention and FFN; final LayerNorm), a linear class head with a no-object class and a 3-layer MLP box head
with a sigmoid), after `microsoft/table-transformer-detection` (PubTables-1M table detection), shrunk, with the
transformers ResNet backbone (use_timm_backbone=False, built with random weights from `backbone_config`, nothing
downloaded) instead of timm's resnet18.

TableTransformerForObjectDetection. Backbone: ResNet-18 as published (basic blocks, depths (2, 2, 2, 2), widths 64,
128, 256, 512, stem 64), only the last stage (stride 32) feeds the transformer. Transformer: d_model 256 -> 128
(8 heads kept: head size 32 -> 16), 6+6 layers -> 2+2, ffn 2048 -> 512. Image: the published processor resizes the
page to a longest edge of 800 and pads the batch -> here 256 x 352 (an 8 x 11 token grid).
Kept: 15 queries, 2 labels ("table", "table rotated") + no-object, sine position embedding, relu, dilation False.
Inputs: pixel_values (2, 3, 256, 352) (ImageNet-normalized) and pixel_mask (2, 256, 352): the second page is
224 x 288 and was zero-padded at its right and bottom borders to the batch size, as the DETR processor pads.
Output: (logits (2, 15, 3) (scored with a softmax; the last class is no-object), pred_boxes (2, 15, 4) (normalized
cx, cy, w, h)). The transformer, query embedding and heads are re-initialized as the original code does (see
Model.__init__) so that the queries are not identical; with random weights the boxes still differ only slightly
between queries (~1e-3), the random backbone's features varying little over the image.
"""
import torch
from torch import nn
from transformers import ResNetConfig, TableTransformerConfig, TableTransformerForObjectDetection

batch_size = 2
height, width = 256, 352  # published: longest edge 800
padded_height, padded_width = 32, 64  # the second page is 224 x 288


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = TableTransformerForObjectDetection(config)
        # transformers initializes every linear and conv outside the backbone with N(0, init_std = 0.02), the query
        # embedding included: the decoder's queries start at zero and differ only by that embedding, the box MLP's
        # output is ~0, and all 15 predictions come out the same box (0.5, 0.5, 0.5, 0.5) and class scores to ~1e-3.
        # Initialize as the original (DETR) code does: the transformer's weight matrices Xavier-uniform
        # (Transformer._reset_parameters), the query embedding nn.Embedding's N(0, 1), the input projection and the
        # class / box heads PyTorch's default init.
        for part in (self.model.model.encoder, self.model.model.decoder):
            for module in part.modules():
                if isinstance(module, nn.Linear):
                    nn.init.xavier_uniform_(module.weight)
        self.model.model.query_position_embeddings.reset_parameters()
        self.model.model.input_projection.reset_parameters()
        self.model.class_labels_classifier.reset_parameters()
        for layer in self.model.bbox_predictor.layers:
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
    # microsoft/table-transformer-detection config.json. Kept: backbone resnet18 (here the transformers ResNet with
    # the same layout), num_queries 15, 2 labels, sine position embedding, relu, dilation False, auxiliary_loss False,
    # dropout 0.1 (inactive in eval), attention / activation dropout 0, init_std 0.02, init_xavier_std 1.0, layerdrop
    # 0.
    backbone_config = ResNetConfig(
        num_channels=3,
        embedding_size=64,
        hidden_sizes=[64, 128, 256, 512],
        depths=[2, 2, 2, 2],
        layer_type="basic",
        hidden_act="relu",
        downsample_in_first_stage=False,
        out_features=["stage4"],
    )
    return [TableTransformerConfig(
        use_timm_backbone=False,
        backbone_config=backbone_config,
        num_channels=3,
        num_queries=15,
        d_model=128,  # published 256
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=8,
        decoder_attention_heads=8,
        encoder_ffn_dim=512,  # published 2048
        decoder_ffn_dim=512,  # published 2048
        encoder_layerdrop=0.0,
        decoder_layerdrop=0.0,
        activation_function="relu",
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        init_std=0.02,
        init_xavier_std=1.0,
        auxiliary_loss=False,
        position_embedding_type="sine",
        dilation=False,
        id2label={0: "table", 1: "table rotated"},
        label2id={"table": 0, "table rotated": 1},
    )]
