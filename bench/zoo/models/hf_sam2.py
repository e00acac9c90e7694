"""SAM 2.1 image segmentation (Meta 2024, "SAM 2: Segment Anything in Images and Videos", `facebook/sam2.1-hiera-tiny`,
Sam2Model), single-image prompting path, shrunk. What differs from SAM 1 (hf_sam) and is kept here:
  - image encoder: Hiera (hierarchical MAE-pretrained ViT, "HieraDet"): 7 x 7 stride-4 conv patch embedding; a
    learned absolute position embedding built from a small "background" table bicubically resized to the token grid
    PLUS a per-window table tiled over it; four stages with channel doubling and Q-pooling (2 x 2 max-pool of the
    queries, and of the residual through a linear projection) at the first block of each later stage; windowed
    multi-head attention (window size per stage, windows padded and partitioned) with a few global-attention blocks;
  - FPN neck: 1 x 1 lateral convs to a common width, nearest-neighbour top-down fusion on the chosen levels only,
    sine position encodings per level; the three finest levels (strides 4, 8, 16) are kept;
  - mask decoder: the stride-16 map (plus a learned "no memory" embedding, as on the first video frame) feeds the
    two-way transformer with the point-prompt tokens; the stride-4 and stride-8 maps are projected (conv_s0 /
    conv_s1) and added as HIGH-RESOLUTION skip features inside the transposed-conv mask upscaler; extra object-score
    token and head (is an object present?), and the dynamic multimask selection: at inference with one point,
    the stability score of the single-mask output decides whether the best of the 3 multimask outputs replaces it.
Shrunk (from the Sam2*Config defaults = sam2.1-hiera-tiny; no hub config is read): image 1024 -> 128, Hiera width
96 -> 32 (stages 32 / 64 / 128 / 256), blocks per stage (1, 2, 7, 2) -> (1, 1, 2, 1), heads (1, 2, 4, 8) kept,
window sizes (8, 4, 14, 7) -> (8, 4, 4, 2), global blocks (5, 7, 9) -> (3,), background position table 7 x 7 ->
4 x 4; FPN / prompt / decoder width 256 -> 64, decoder MLP 2048 -> 256, 8 heads -> 4, IoU head hidden 256 -> 64
(2 two-way layers, 3 multimask outputs, IoU head depth 3, stability delta 0.05 / threshold 0.98 kept).
Stand-ins for trained weights: with the library init (N(0, 0.02^2) weights, zero position tables) the mask logits
are ~1e-4, so every Linear / Conv / ConvTranspose weight is redrawn with PyTorch's default (Kaiming-uniform) init,
and the zero-initialised Hiera position tables and no-memory embedding are drawn from N(0, 0.02^2).
Inputs: pixel_values (2, 3, 128, 128) and input_points (2, 1, 1, 2): one foreground point per image, in the resized
image's pixel coordinates (labels default to 1). Outputs: pred_masks (2, 1, 1, 32, 32) (single-mask output, the
dynamic-multimask choice, at 4 x the embedding grid), iou_scores (2, 1, 1), object_score_logits (2, 1, 1).
"""
import torch
from torch import nn
from transformers import (
    Sam2Config,
    Sam2HieraDetConfig,
    Sam2MaskDecoderConfig,
    Sam2Model,
    Sam2PromptEncoderConfig,
    Sam2VisionConfig,
)

batch_size = 2
image_size = 128
patch_size = 16  # stride of the embedding grid the prompt encoder assumes


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Sam2Model(config)
        with torch.no_grad():
            for module in self.model.modules():
                if isinstance(module, (nn.Linear, nn.Conv2d, nn.ConvTranspose2d)):
                    module.reset_parameters()
            backbone = self.model.vision_encoder.backbone
            for param in (backbone.pos_embed, backbone.pos_embed_window, self.model.no_memory_embedding):
                nn.init.normal_(param, std=0.02)

    def forward(self, pixel_values, input_points):
        # multimask_output=False: SAM 2's default for a single click, which runs the stability-based selection
        out = self.model(pixel_values=pixel_values, input_points=input_points, multimask_output=False)
        return out.pred_masks, out.iou_scores, out.object_score_logits


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    input_points = torch.rand(batch_size, 1, 1, 2) * image_size
    return [pixel_values, input_points]


def get_init_inputs():
    # Kept: patch kernel 7 / stride 4 / padding 3, query stride 2, 3 query-pool stages, mlp_ratio 4, gelu,
    # layer norm eps 1e-6, FPN kernel 1, top-down levels (2, 3), 3 feature levels, mask_input_channels 16.
    backbone_config = Sam2HieraDetConfig(
        hidden_size=32,  # published 96
        num_attention_heads=1,
        image_size=[image_size, image_size],  # published 1024
        blocks_per_stage=[1, 1, 2, 1],  # published [1, 2, 7, 2]
        embed_dim_per_stage=[32, 64, 128, 256],  # published [96, 192, 384, 768]
        num_attention_heads_per_stage=[1, 2, 4, 8],
        window_size_per_stage=[8, 4, 4, 2],  # published [8, 4, 14, 7]
        global_attention_blocks=[3],  # published [5, 7, 9]
        window_positional_embedding_background_size=[4, 4],  # published [7, 7]
    )
    vision_config = Sam2VisionConfig(
        backbone_config=backbone_config,
        backbone_channel_list=[256, 128, 64, 32],  # published [768, 384, 192, 96]
        backbone_feature_sizes=[[32, 32], [16, 16], [8, 8]],  # published [[256, 256], [128, 128], [64, 64]]
        fpn_hidden_size=64,  # published 256
    )
    prompt_encoder_config = Sam2PromptEncoderConfig(
        hidden_size=64,  # published 256
        image_size=image_size,  # published 1024
        patch_size=patch_size,
    )
    mask_decoder_config = Sam2MaskDecoderConfig(
        hidden_size=64,  # published 256
        mlp_dim=256,  # published 2048
        num_attention_heads=4,  # published 8
        iou_head_hidden_dim=64,  # published 256
    )
    return [Sam2Config(
        vision_config=vision_config,
        prompt_encoder_config=prompt_encoder_config,
        mask_decoder_config=mask_decoder_config,
    )]
