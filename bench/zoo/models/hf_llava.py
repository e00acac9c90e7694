"""LLaVA-1.5 (CLIP ViT vision tower, features from the second-to-last layer with CLS dropped, 2-layer GELU MLP
projector, Llama decoder; image tokens in the prompt replaced by projected patch features), after
`llava-hf/llava-1.5-7b-hf`, shrunk.

Vision: 336x336 / patch 14 -> 112x112 / patch 14 (8 x 8 = 64 patches + CLS; "default" strategy drops CLS, so
the prompt holds the image token 64 times), hidden 1024 -> 64, 24 layers -> 2, 16 heads -> 4, intermediate
4096 -> 256. Text: hidden 4096 -> 128, 32 layers -> 2, 32 heads -> 4, intermediate 11008 -> 344,
vocab 32064 -> 1064 (image token 32000 -> 1000, pad 32001 -> 1001: the added tokens after the base vocab).
Inputs: input_ids (2, 80) = bos, 64 image tokens, 15 text tokens (second sample: last 5 are right padding),
pixel_values (2, 3, 112, 112), attention_mask. Output: LM logits (2, 80, 1064).
"""
import torch
from torch import nn
from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig, LlavaForConditionalGeneration

batch_size = 2
image_size = 112
num_image_tokens = (112 // 14) ** 2  # 64 patches, CLS dropped
text_len = 16  # bos + 15 text tokens
seq_len = num_image_tokens + text_len
image_token_id = 1000
pad_token_id = 1001


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LlavaForConditionalGeneration(config)

    def forward(self, input_ids, pixel_values, attention_mask):
        return self.model(input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask).logits


def get_inputs():
    text = torch.randint(2, 1000, (batch_size, text_len - 1))
    bos = torch.ones(batch_size, 1, dtype=torch.long)
    image = torch.full((batch_size, num_image_tokens), image_token_id)
    input_ids = torch.cat([bos, image, text], dim=1)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id
    attention_mask[1, -5:] = 0
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    return [input_ids, pixel_values, attention_mask]


def get_init_inputs():
    # llava-hf/llava-1.5-7b-hf config.json. Kept: quick_gelu CLIP, patch 14, vision_feature_layer -2,
    # strategy "default", gelu projector with bias, Llama silu / rms_norm_eps 1e-5 / rope_theta 1e4 /
    # max_position_embeddings 4096, untied head.
    vision_config = CLIPVisionConfig(
        hidden_size=64,  # published 1024
        intermediate_size=256,  # published 4096
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        image_size=image_size,  # published 336
        patch_size=14,
        projection_dim=64,  # published 768 (unused by LLaVA)
        hidden_act="quick_gelu",
        layer_norm_eps=1e-5,
    )
    text_config = LlamaConfig(
        vocab_size=1064,  # published 32064
        hidden_size=128,  # published 4096
        intermediate_size=344,  # published 11008
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        max_position_embeddings=4096,
        rms_norm_eps=1e-5,
        pad_token_id=pad_token_id,
    )
    return [LlavaConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_index=image_token_id,  # published 32000
        image_seq_length=num_image_tokens,  # published 576
        projector_hidden_act="gelu",
        vision_feature_layer=-2,
        vision_feature_select_strategy="default",
        multimodal_projector_bias=True,
    )]
