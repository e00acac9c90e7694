"""Segment Anything (ViT image encoder with windowed + global attention and relative position bias, neck to the
image embedding; prompt encoder for points; two-way transformer mask decoder with 3 multimask outputs + IoU head),
after `facebook/sam-vit-base`, shrunk hard.

Vision: image 1024 -> 128 (patch 16 kept: 8 x 8 embedding grid instead of 64 x 64), hidden 768 -> 64,
12 layers -> 2, 12 heads -> 2, window 14 -> 4, global attention at layers (2, 5, 8, 11) -> (1,),
output channels 256 -> 64. Prompt encoder / mask decoder: hidden 256 -> 64, decoder mlp 2048 -> 256,
8 heads -> 4, IoU head hidden 256 -> 64 (2 two-way layers, 3 multimask outputs, IoU head depth 3 kept).
Inputs: pixel_values (2, 3, 128, 128) and input_points (2, 1, 1, 2): one foreground point per image, in the
resized image's pixel coordinates (labels default to 1). Outputs: pred_masks (2, 1, 3, 32, 32) (low-res masks,
4 x the embedding grid), iou_scores (2, 1, 3).
"""
import torch
from torch import nn
from transformers import SamConfig, SamMaskDecoderConfig, SamModel, SamPromptEncoderConfig, SamVisionConfig

batch_size = 2
image_size = 128
patch_size = 16


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SamModel(config)

    def forward(self, pixel_values, input_points):
        out = self.model(pixel_values=pixel_values, input_points=input_points)
        return out.pred_masks, out.iou_scores


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    input_points = torch.rand(batch_size, 1, 1, 2) * image_size
    return [pixel_values, input_points]


def get_init_inputs():
    # facebook/sam-vit-base config.json. Kept: patch 16, abs + rel pos, qkv bias, mlp_ratio 4, gelu encoder,
    # relu decoder, 2 two-way layers, attention_downsample_rate 2, 3 multimask outputs, IoU head depth 3,
    # mask_input_channels 16, layer_norm_eps 1e-6.
    vision_config = SamVisionConfig(
        hidden_size=64,  # published 768
        output_channels=64,  # published 256
        num_hidden_layers=2,  # published 12
        num_attention_heads=2,  # published 12
        image_size=image_size,  # published 1024
        patch_size=patch_size,
        window_size=4,  # published 14
        global_attn_indexes=(1,),  # published (2, 5, 8, 11)
        num_pos_feats=32,  # published 128 (= output channels / 2)
        mlp_ratio=4.0,
        use_abs_pos=True,
        use_rel_pos=True,
        qkv_bias=True,
    )
    prompt_encoder_config = SamPromptEncoderConfig(
        hidden_size=64,  # published 256
        image_size=image_size,  # published 1024
        patch_size=patch_size,
        mask_input_channels=16,
        num_point_embeddings=4,
    )
    mask_decoder_config = SamMaskDecoderConfig(
        hidden_size=64,  # published 256
        mlp_dim=256,  # published 2048
        num_hidden_layers=2,
        num_attention_heads=4,  # published 8
        attention_downsample_rate=2,
        num_multimask_outputs=3,
        iou_head_depth=3,
        iou_head_hidden_dim=64,  # published 256
    )
    return [SamConfig(
        vision_config=vision_config,
        prompt_encoder_config=prompt_encoder_config,
        mask_decoder_config=mask_decoder_config,
    )]
