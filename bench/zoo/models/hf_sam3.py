"""SAM 3 promptable concept segmentation (Meta, 2025, "SAM 3: Segment Anything with Concepts"; `facebook/sam3`),
the image detector, shrunk: given an image and a noun-phrase prompt (plus optional exemplar boxes), detect, box and
segment every instance of the concept. Vision: a Perception-Encoder ViT (conv patch embedding, learned position
embeddings pre-trained at a smaller grid and tiled, not interpolated, to the input grid; pre-LN blocks with axial
2D RoPE (pairwise-interleaved rotation) in windowed attention, every few blocks global attention with the RoPE
positions rescaled to the window's frame) and a simple FPN neck (transposed-conv x4 / x2, identity, max-pool x0.5
branches, sine position encodings). Text: a CLIP causal text encoder, its token states projected to the detector
width. Exemplar boxes go through a geometry encoder (box coordinates and labels embedded, image features pooled
inside each box with torchvision roi_align 7 x 7 and a conv, cross-attention to the image) and are concatenated to
the text prompt. A DETR encoder fuses the stride-14 image tokens with the prompt (self-attention with sine
positions, cross-attention to the prompt tokens under the prompt padding mask); a DETR decoder runs learned object
queries plus one presence token through self-attention, prompt cross-attention and image cross-attention with a
box relative-position bias (log-scaled deltas between each query's reference box and every pixel, through an
MLP), refining the boxes layer by layer (inverse-sigmoid offsets). Queries are scored by a dot product with the
mean-pooled prompt; the presence token gives an image-level "is the concept here" logit. A mask decoder (prompt
cross-attention, FPN-style upsampling of the pixel features, query-pixel dot products) gives per-query masks and a
semantic map.

Sam3Model (sdpa); the output is the tuple (pred_masks (2, 20, 32, 32), pred_boxes (2, 20, 4) xyxy in [0, 1],
pred_logits (2, 20), presence_logits (2, 1), semantic_seg (2, 1, 32, 32)).
Shrunk: ViT hidden 1024 -> 64, 32 layers -> 4 (global attention at 1 and 3; published 7, 15, 23, 31), 16 heads ->
4, intermediate 4736 -> 256, image 1008 -> 112 (patch 14 kept: an 8 x 8 grid), window 24 -> 4, position-embedding
pre-train size 336 -> 56 (a 4 x 4 table tiled 2 x 2; published 24 x 24 tiled 3 x 3); FPN / DETR / mask widths 256
-> 64, FPN sizes (288, 144, 72) -> (32, 16, 8); CLIP text hidden 1024 -> 64, 24 layers -> 2, 16 heads -> 4,
intermediate 4096 -> 256, vocab 49408 -> 1000; DETR encoder / decoder 6 layers -> 2, 8 heads -> 4, FFN 2048 ->
128, 200 queries -> 20; geometry encoder 3 layers -> 1.
Kept: scale factors (4, 2, 1, 0.5), patch 14, text context 32, roi_size 7, 3 mask upsampling stages, relu FFNs in
the detector, gelu in the towers, layer_norm_eps 1e-6.
Inputs: pixel_values (2, 3, 112, 112) normalised with mean = std = 0.5; input_ids (2, 8) (prompts of 5 and 3
tokens between bos 998 and eos 999, right-padded) with attention_mask; input_boxes (2, 1, 4) one exemplar box per
image (cx, cy, w, h normalised) with input_boxes_labels (2, 1) = 1 (positive).
"""
import torch
from torch import nn
from transformers import (
    CLIPTextConfig,
    Sam3Config,
    Sam3DETRDecoderConfig,
    Sam3DETREncoderConfig,
    Sam3GeometryEncoderConfig,
    Sam3MaskDecoderConfig,
    Sam3Model,
    Sam3VisionConfig,
    Sam3ViTConfig,
)

batch_size = 2
image_size = 112
seq_len = 8
prompt_lens = [5, 3]
vocab_size = 1000
bos_token_id, eos_token_id, pad_token_id = 998, 999, 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Sam3Model(config)

    def forward(self, pixel_values, input_ids, attention_mask, input_boxes, input_boxes_labels):
        out = self.model(
            pixel_values=pixel_values,
            input_ids=input_ids,
            attention_mask=attention_mask,
            input_boxes=input_boxes,
            input_boxes_labels=input_boxes_labels,
        )
        return out.pred_masks, out.pred_boxes, out.pred_logits, out.presence_logits, out.semantic_seg


def get_inputs():
    pixel_values = (torch.rand(batch_size, 3, image_size, image_size) - 0.5) / 0.5
    input_ids = torch.full((batch_size, seq_len), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for b in range(batch_size):
        n = prompt_lens[b % len(prompt_lens)]
        input_ids[b, 0] = bos_token_id
        input_ids[b, 1:n + 1] = torch.randint(1, bos_token_id, (n,))
        input_ids[b, n + 1] = eos_token_id
        attention_mask[b, :n + 2] = 1
    input_boxes = torch.tensor([[[0.4, 0.45, 0.3, 0.4]], [[0.6, 0.5, 0.25, 0.5]]])[:batch_size]
    input_boxes_labels = torch.ones(batch_size, 1, dtype=torch.long)
    return [pixel_values, input_ids, attention_mask, input_boxes, input_boxes_labels]


def get_init_inputs():
    # facebook/sam3 (the Sam3Config defaults). Kept: patch 14, scale_factors (4, 2, 1, 0.5), axial rope,
    # layer_norm_eps 1e-6, gelu towers / relu detector FFNs, roi_size 7, 3 mask upsampling stages, text context 32.
    backbone_config = Sam3ViTConfig(
        hidden_size=64,  # published 1024
        intermediate_size=256,  # published 4736
        num_hidden_layers=4,  # published 32
        num_attention_heads=4,  # published 16
        image_size=image_size,  # published 1008
        patch_size=14,
        window_size=4,  # published 24
        global_attn_indexes=[1, 3],  # published [7, 15, 23, 31]
        pretrain_image_size=56,  # published 336
    )
    vision_config = Sam3VisionConfig(
        backbone_config=backbone_config,
        fpn_hidden_size=64,  # published 256
        backbone_feature_sizes=[[32, 32], [16, 16], [8, 8]],  # published [[288, 288], [144, 144], [72, 72]]
        scale_factors=[4.0, 2.0, 1.0, 0.5],
    )
    text_config = CLIPTextConfig(
        vocab_size=vocab_size,  # published 49408
        hidden_size=64,  # published 1024
        intermediate_size=256,  # published 4096
        projection_dim=32,  # published 512
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        max_position_embeddings=32,
        hidden_act="gelu",
        pad_token_id=pad_token_id,
        bos_token_id=bos_token_id,  # published 49406
        eos_token_id=eos_token_id,  # published 49407
    )
    detector = dict(hidden_size=64, num_attention_heads=4, intermediate_size=128)  # published 256, 8, 2048
    return [Sam3Config(
        vision_config=vision_config,
        text_config=text_config,
        geometry_encoder_config=Sam3GeometryEncoderConfig(num_layers=1, **detector),  # published 3 layers
        detr_encoder_config=Sam3DETREncoderConfig(num_layers=2, **detector),  # published 6
        detr_decoder_config=Sam3DETRDecoderConfig(num_layers=2, num_queries=20, **detector),  # published 6, 200
        mask_decoder_config=Sam3MaskDecoderConfig(hidden_size=64, num_attention_heads=4),  # published 256, 8
    )]
