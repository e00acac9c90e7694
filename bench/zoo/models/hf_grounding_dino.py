"""Grounding DINO open-set (text-prompted) object detector (Swin backbone: patch-4 embedding, shifted-window attention
with relative position bias, patch merging; its stride 8 / 16 / 32 stage outputs projected to d_model by 1x1 conv +
GroupNorm, plus a fourth level from a stride-2 3x3 conv + GroupNorm on the last stage (stride 64), each level's padding
mask downsampled from pixel_mask, sine position embeddings (temperature 20) plus a learned per-level embedding; BERT
text backbone run on the caption with a phrase-block attention mask and phrase-relative position ids derived from
the special tokens ([CLS], [SEP], '.', '?': each token sees only the tokens of its own phrase), projected to d_model;
feature-enhancer encoder layers, each: bi-directional image <-> text cross-attention fusion (both sides
LayerNormed, one attention-logit map softmaxed over the text for the image side and over the image for the text side,
added under per-channel layer scales), text self-attention with the phrase mask and sine position embeddings of the
position ids, and multi-scale deformable self-attention over the flattened image levels (per head 4 sampling offsets
in each of the 4 levels around each token's reference point, bilinear grid_sample, softmaxed weights), the latter
two each with an FFN; language-guided query selection (two-stage): every image token becomes a proposal (grid-anchor box, w/h
0.05 * 2^level, inverse-sigmoid, padded / border tokens masked to inf), scored against every text token by a dot
product (contrastive embedding: text padding -> -inf, padded to max_text_len with -inf), and the top-k by max text
score give the decoder's reference boxes, while its content queries are learned embeddings (embedding_init_target);
cross-modality decoder layers: query self-attention, text cross-attention, deformable image cross-attention, FFN
(post-norm), the query position being an MLP of the sine embedding of the current reference box, each layer refining
the boxes in logit space with the shared box MLP; class logits = dot products of the queries with the encoder's
text features), after `IDEA-Research/grounding-dino-tiny`, shrunk. The multi-scale deformable attention runs in its
pure-PyTorch path (grid_sample per level; no custom kernel is installed).

GroundingDinoForObjectDetection (backbone and BERT built with random weights from `backbone_config` / `text_config`,
nothing downloaded).
Swin-T backbone: embed_dim 96 -> 32, depths (2, 2, 6, 2) -> (1, 1, 2, 1), heads (3, 6, 12, 24) -> (1, 2, 4, 8)
(head size 32 kept). BERT (bert-base-uncased): hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4 (head size 64 -> 16),
intermediate 3072 -> 256 (the 30522-token uncased WordPiece vocabulary is kept, so the special-token ids 101 / 102 /
1012 / 1029 that the model splits phrases on are the real ones). Transformer: d_model 256 -> 64 (8 heads kept: head
size 32 -> 8), 6 + 6 layers -> 2 + 2, encoder / decoder ffn 2048 -> 128, 900 queries -> 100.
Kept: window 7, patch 4, out stages 2-4 + 1 extra level (4 levels), 4 sampling points per head and level, two-stage
query selection, embedding_init_target, shared decoder box head, max_text_len 256, sine position embedding
(temperature 20), relu.
Inputs, as GroundingDinoProcessor returns them: pixel_values (2, 3, 128, 160) and pixel_mask (2, 128, 160) (the
second image is 96 x 128 and zero-padded at its right and bottom borders; levels 16 x 20, 8 x 10, 4 x 5, 2 x 3 = 426
tokens); input_ids (2, 9) int64 with attention_mask (2, 9): "a cat. a remote control." and "a dog." (the second
padded with [PAD] = 0 and mask 0 on its 4-token tail); token_type_ids left at its default (zeros).
Output: (probs (2, 100, 256): sigmoid of the query-to-text-token logits, padded to max_text_len, as the processor's
post_process_grounded_object_detection computes first (the logits themselves are -inf on padded and past-the-end
text positions), pred_boxes (2, 100, 4) (normalized cx, cy, w, h)). The box MLPs and the fusion layer scales are
re-initialized (see Model.__init__) so that the boxes are not exactly the encoder's anchor proposals and the
image <-> text fusion is not scaled away.
"""
import torch
from torch import nn
from transformers import BertConfig, GroundingDinoConfig, GroundingDinoForObjectDetection, SwinConfig

batch_size = 2
height, width = 128, 160
padded_height, padded_width = 32, 32  # the second image is 96 x 128
# bert-base-uncased WordPiece ids: [CLS] a cat . a remote control . [SEP]  /  [CLS] a dog . [SEP] [PAD] x 4
captions = [
    [101, 1037, 4937, 1012, 1037, 6556, 2491, 1012, 102],
    [101, 1037, 3899, 1012, 102],
]
pad_token_id = 0
seq_len = max(len(c) for c in captions)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GroundingDinoForObjectDetection(config)
        # transformers zero-initializes the last layer of every box MLP (as the original code does), so each decoder
        # layer's box delta is 0 and every predicted box is exactly its top-k anchor proposal; and the fusion layers'
        # layer scales start at 1e-4 (as in the original code), which scales the image <-> text exchange of the
        # feature enhancer away. Stand in for trained weights: the box MLPs' linears get PyTorch's default
        # initialization (the heads' and the decoder's own copy), the fusion layer scales 1.
        heads = list(self.model.bbox_embed) + list(self.model.model.decoder.bbox_embed)
        heads.append(self.model.model.encoder_output_bbox_embed)
        for head in heads:
            for layer in head.layers:
                layer.reset_parameters()
        for layer in self.model.model.encoder.layers:
            nn.init.ones_(layer.fusion_layer.vision_param)
            nn.init.ones_(layer.fusion_layer.text_param)

    def forward(self, pixel_values, input_ids, attention_mask, pixel_mask):
        out = self.model(
            pixel_values=pixel_values, input_ids=input_ids, attention_mask=attention_mask, pixel_mask=pixel_mask
        )
        return out.logits.sigmoid(), out.pred_boxes


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, height, width)
    pixel_mask = torch.ones(batch_size, height, width, dtype=torch.long)
    pixel_values[1, :, -padded_height:, :] = 0.0
    pixel_values[1, :, :, -padded_width:] = 0.0
    pixel_mask[1, -padded_height:, :] = 0
    pixel_mask[1, :, -padded_width:] = 0
    input_ids = torch.full((batch_size, seq_len), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, caption in enumerate(captions):
        input_ids[i, : len(caption)] = torch.tensor(caption)
        attention_mask[i, : len(caption)] = 1
    return [pixel_values, input_ids, attention_mask, pixel_mask]


def get_init_inputs():
    # IDEA-Research/grounding-dino-tiny config.json. Kept: Swin-T patch 4, window 7, mlp_ratio 4, gelu, qkv_bias,
    # no absolute position embedding, out_features stage2-4; bert-base-uncased vocab 30522, 512 positions,
    # type_vocab_size 2, gelu, layer_norm_eps 1e-12; Grounding DINO: 4 feature levels, encoder / decoder n_points 4,
    # two_stage True, embedding_init_target True, decoder_bbox_embed_share True, two_stage_bbox_embed_share False,
    # max_text_len 256, query_dim 4, sine position embedding with temperature 20, relu, dropout 0.1 (inactive in
    # eval), attention / activation / fusion dropout 0, fusion_droppath 0.1, text_enhancer_dropout 0,
    # layer_norm_eps 1e-5, init_std 0.02, auxiliary_loss False, disable_custom_kernels False.
    backbone_config = SwinConfig(
        image_size=224,
        patch_size=4,
        embed_dim=32,  # published 96
        depths=[1, 1, 2, 1],  # published [2, 2, 6, 2]
        num_heads=[1, 2, 4, 8],  # published [3, 6, 12, 24]
        window_size=7,
        mlp_ratio=4.0,
        qkv_bias=True,
        hidden_act="gelu",
        drop_path_rate=0.1,
        use_absolute_embeddings=False,
        out_features=["stage2", "stage3", "stage4"],
    )
    text_config = BertConfig(
        vocab_size=30522,
        hidden_size=64,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        hidden_act="gelu",
        max_position_embeddings=512,
        type_vocab_size=2,
        layer_norm_eps=1e-12,
        pad_token_id=pad_token_id,
    )
    return [GroundingDinoConfig(
        backbone_config=backbone_config,
        text_config=text_config,
        num_queries=100,  # published 900
        d_model=64,  # published 256
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=8,
        decoder_attention_heads=8,
        encoder_ffn_dim=128,  # published 2048
        decoder_ffn_dim=128,  # published 2048
        activation_function="relu",
        num_feature_levels=4,
        encoder_n_points=4,
        decoder_n_points=4,
        two_stage=True,
        embedding_init_target=True,
        decoder_bbox_embed_share=True,
        two_stage_bbox_embed_share=False,
        max_text_len=256,
        query_dim=4,
        position_embedding_type="sine",
        positional_embedding_temperature=20,
        fusion_droppath=0.1,
        fusion_dropout=0.0,
        text_enhancer_dropout=0.0,
        layer_norm_eps=1e-5,
    )]
