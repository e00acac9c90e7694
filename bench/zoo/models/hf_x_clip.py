"""X-CLIP video-text model (Ni et al. 2022, "Expanding Language-Image Pretrained Models for General Video
Recognition"): a CLIP ViT applied to every frame, whose blocks are cross-frame communication blocks (each frame's
[CLS] token is projected into a message token, the messages of all frames of a video exchange information through a
message self-attention, and each frame's message token is appended to that frame's tokens for the frame's
self-attention, then dropped before the MLP); the frames' pooled [CLS] features, projected, go through a multi-frame
integration transformer (learned temporal position embedding, pre-norm CLIP layers, residual, mean over frames) to
give the video embedding; a causal CLIP text transformer pooled at the end-of-text token (argmax of the ids) and
projected gives each text embedding, to which a video-specific prompt generator adds alpha x (cross-attention layers
whose text queries attend to the frame-averaged, LayerNormed and projected patch tokens of the video); logits are the
scaled cosine similarities between each video embedding and its video-conditioned text embeddings. After
`microsoft/xclip-base-patch32`, shrunk.

XCLIPModel. Vision (ViT-B/32): hidden 768 -> 128, 12 layers -> 2, 12 heads -> 2 (head size 64 kept), intermediate
3072 -> 512, 224 x 224 frames -> 128 x 128 (4 x 4 = 16 patches + [CLS], + 1 message token in attention); patch 32 and
8 frames per video kept. MIT: hidden 512 -> 128 (= projection_dim), 1 layer kept, 8 heads -> 2, intermediate
2048 -> 512. Text: hidden 512 -> 128, 12 layers -> 2, 8 heads -> 2 (head size 64 kept), intermediate 2048 -> 512,
vocab 49408 -> 1000 (start / end-of-text 49406 / 49407 -> 998 / 999, still the largest ids, so the argmax pooling of
the published config (eos_token_id 2, the legacy path) finds the end-of-text token). Projection 512 -> 128, prompt
generator: 2 layers kept, 8 heads -> 2 (head size 64 kept), alpha 0.1 kept.
Inputs: input_ids (2, 16) and attention_mask (2, 16): two captions, the second right-padded (5 tokens of padding, padded
with the end-of-text id as the CLIP tokenizer does, mask 0); pixel_values (2, 8, 3, 128, 128) (videos, frames,
channels, height, width).
Output: logits_per_video (2, 2): scaled cosine similarity of each video with each caption.
"""
import torch
from torch import nn
from transformers import XCLIPConfig, XCLIPModel, XCLIPTextConfig, XCLIPVisionConfig

batch_size = 2
num_frames = 8
image_size = 128  # published 224
seq_len = 16
vocab_size = 1000
sot_id, eot_id = 998, 999  # published 49406, 49407
caption_lens = [14, 9]  # words between <|startoftext|> and <|endoftext|>; the second caption is padded


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = XCLIPModel(config)

    def forward(self, input_ids, attention_mask, pixel_values):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, pixel_values=pixel_values).logits_per_video


def get_inputs():
    input_ids = torch.full((batch_size, seq_len), eot_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, n in enumerate(caption_lens):
        input_ids[i, 0] = sot_id
        input_ids[i, 1 : n + 1] = torch.randint(1, sot_id, (n,))
        attention_mask[i, : n + 2] = 1  # <sot> words <eot>
    pixel_values = torch.randn(batch_size, num_frames, 3, image_size, image_size)
    return [input_ids, attention_mask, pixel_values]


def get_init_inputs():
    # microsoft/xclip-base-patch32 config.json. Kept: quick_gelu everywhere, layer_norm_eps 1e-5, 77 text positions,
    # text bos / eos / pad ids 0 / 2 / 1 as in the published text_config (eos 2 selects argmax pooling), patch 32,
    # 8 frames, 1 MIT layer, 2 prompt layers, prompt_alpha 0.1, logit_scale_init 2.6592, dropouts / drop_path 0,
    # initializer_factor 1.0.
    text_config = XCLIPTextConfig(
        vocab_size=vocab_size,  # published 49408
        hidden_size=128,  # published 512
        intermediate_size=512,  # published 2048
        num_hidden_layers=2,  # published 12
        num_attention_heads=2,  # published 8
        max_position_embeddings=77,
        hidden_act="quick_gelu",
        layer_norm_eps=1e-5,
        bos_token_id=0,
        eos_token_id=2,
        pad_token_id=1,
    )
    vision_config = XCLIPVisionConfig(
        hidden_size=128,  # published 768
        intermediate_size=512,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=2,  # published 12
        mit_hidden_size=128,  # published 512
        mit_intermediate_size=512,  # published 2048
        mit_num_hidden_layers=1,
        mit_num_attention_heads=2,  # published 8
        image_size=image_size,  # published 224
        patch_size=32,
        num_frames=num_frames,
        hidden_act="quick_gelu",
        layer_norm_eps=1e-5,
        drop_path_rate=0.0,
    )
    return [XCLIPConfig(
        text_config=text_config,
        vision_config=vision_config,
        projection_dim=128,  # published 512
        prompt_layers=2,
        prompt_alpha=0.1,
        prompt_hidden_act="quick_gelu",
        prompt_num_attention_heads=2,  # published 8
        prompt_attention_dropout=0.0,
        prompt_projection_dropout=0.0,
        logit_scale_init_value=2.6592,
    )]
