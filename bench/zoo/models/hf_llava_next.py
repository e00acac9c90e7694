"""LLaVA-NeXT (LLaVA-1.6: "AnyRes" high-resolution input: each image is resized onto the best-fitting grid of
crops chosen from image_grid_pinpoints, cut into those crops plus a downscaled base image, all encoded by a CLIP ViT;
features from the second-to-last layer with CLS dropped, a 2-layer GELU MLP projector; the crop features are
re-assembled into one feature map, the letterbox padding is cut away (unpad_image, sized by image_sizes), a learned
image_newline vector is appended at the end of every feature row, and the base image's features are put in front;
the image tokens of the prompt are replaced by these features (masked_scatter); Mistral decoder), after
`llava-hf/llava-v1.6-mistral-7b-hf`, shrunk.

LlavaNextForConditionalGeneration. The number of crops per image (image_size_to_num_patches), the grid shape and the
unpadding are computed on the host from image_sizes (Python loops over the images, .tolist(), data-dependent
slicing), so the image feature length depends on the input values of image_sizes.
Vision (CLIP ViT-L/14-336): hidden 1024 -> 64, 24 layers -> 2 (vision_feature_layer -2 kept: the features come from
layer 1, the last layer runs but is unused, as in the published model), 16 heads -> 4, intermediate 4096 -> 256,
image (crop) size 336 -> 112 (patch 14 kept: 24 x 24 -> 8 x 8 patches + CLS), image_grid_pinpoints scaled by
112 / 336: [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]] -> [[112, 224], [224, 112], [224, 224],
[336, 112], [112, 336]] (the same 1x2, 2x1, 2x2, 3x1, 1x3 crop grids). Text (Mistral-7B-Instruct-v0.2): hidden
4096 -> 128, 32 layers -> 2, 32 heads -> 4, 8 kv heads -> 1 (4:1 GQA kept; head_dim 128 -> 32), intermediate
14336 -> 448 (3.5x kept), vocab 32064 -> 1064 (<image> 32000 -> 1000, <pad> 32001 -> 1001: the added tokens after
the base vocab; bos 1 / eos 2 kept).
Inputs, as LlavaNextProcessor builds them (the token counts computed here the way the processor does, from the
config; prompt "[INST] <image>\\n{question} [/INST]", "[INST]" / "[/INST]" / "\\n" ids are stand-ins):
- sample 0: a wide image of 150 x 250 (H x W) -> best grid 224 x 224 (2 x 2 crops) + base image = 5 crops; 64 base
  tokens + a 16 x 16 feature map unpadded to 10 rows x 16 + 10 newlines = 234 image tokens; 10-token question
  (253 tokens);
- sample 1: a tall image of 200 x 100 -> best grid 224 x 112 (2 x 1 crops) + base = 3 crops (pixel_values padded
  with 2 all-zero crops, which the model drops using image_sizes); 64 + 16 x 8 + 16 = 208 image tokens; 20-token
  question (237 tokens), right-padded with <pad> to 253.
input_ids (2, 253), attention_mask (2, 253), pixel_values (2, 5, 3, 112, 112) (CLIP-normalized), image_sizes (2, 2)
int64 (original height, width).
Output: LM logits (2, 253, 1064).
"""
import torch
from torch import nn
from transformers import CLIPVisionConfig, LlavaNextConfig, LlavaNextForConditionalGeneration, MistralConfig
from transformers.image_processing_utils import select_best_resolution

batch_size = 2
image_size = 112  # crop size; published 336
patch_size = 14
image_grid_pinpoints = [[112, 224], [224, 112], [224, 224], [336, 112], [112, 336]]  # published x 3
image_token_id = 1000  # published 32000
pad_token_id = 1001  # published 32001
bos_token_id = 1
inst_ids = [733, 300, 301]  # stand-ins for the SentencePiece pieces of "[INST]"
end_inst_ids = [733, 302, 300, 301]  # stand-ins for the pieces of "[/INST]"
newline_id = 13  # "<0x0A>"
image_sizes_hw = [(150, 250), (200, 100)]  # original (height, width) of the two images
question_lens = [10, 20]


def _num_crops(orig_hw):
    # image_size_to_num_patches: the crops of the best-fitting grid + the base image
    best_h, best_w = select_best_resolution(orig_hw, image_grid_pinpoints)
    return (best_h // image_size) * (best_w // image_size) + 1


def _num_image_tokens(orig_hw):
    # LlavaNextProcessor._get_number_of_features (num_additional_image_tokens 1, strategy "default": CLS dropped)
    orig_h, orig_w = orig_hw
    best_h, best_w = select_best_resolution(orig_hw, image_grid_pinpoints)
    patches = image_size // patch_size
    cur_h, cur_w = patches * (best_h // image_size), patches * (best_w // image_size)
    if orig_w / orig_h > cur_w / cur_h:
        new_h = int(round(orig_h * (cur_w / orig_w), 7))
        cur_h -= 2 * ((cur_h - new_h) // 2)
    else:
        new_w = int(round(orig_w * (cur_h / orig_h), 7))
        cur_w -= 2 * ((cur_w - new_w) // 2)
    return cur_h * cur_w + cur_h + patches * patches  # unpadded features + newlines + base image


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LlavaNextForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, image_sizes):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, pixel_values=pixel_values, image_sizes=image_sizes
        ).logits


def get_inputs():
    prompts = []
    for hw, n in zip(image_sizes_hw, question_lens, strict=True):
        question = torch.randint(3, 1000, (n,)).tolist()
        ids = [bos_token_id] + inst_ids + [image_token_id] * _num_image_tokens(hw) + [newline_id] + question
        prompts.append(torch.tensor(ids + end_inst_ids))
    seq_len = max(p.numel() for p in prompts)
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, p in enumerate(prompts):
        input_ids[i, : p.numel()] = p
        attention_mask[i, : p.numel()] = 1
    num_crops = [_num_crops(hw) for hw in image_sizes_hw]  # [5, 3]
    pixel_values = torch.zeros(batch_size, max(num_crops), 3, image_size, image_size)
    for i, n in enumerate(num_crops):
        pixel_values[i, :n] = torch.randn(n, 3, image_size, image_size)
    image_sizes = torch.tensor(image_sizes_hw, dtype=torch.long)
    return [input_ids, attention_mask, pixel_values, image_sizes]


def get_init_inputs():
    # llava-hf/llava-v1.6-mistral-7b-hf config.json. Kept: quick_gelu CLIP, patch 14, layer_norm_eps 1e-5,
    # vision_feature_layer -2, strategy "default", gelu projector with bias, image_newline, untied LM head; Mistral
    # silu, rms_norm_eps 1e-5, rope_theta 1e6, no sliding window (v0.2), max_position_embeddings 32768.
    vision_config = CLIPVisionConfig(
        hidden_size=64,  # published 1024
        intermediate_size=256,  # published 4096
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        image_size=image_size,  # published 336
        patch_size=patch_size,
        projection_dim=64,  # published 768 (unused by LLaVA-NeXT)
        hidden_act="quick_gelu",
        layer_norm_eps=1e-5,
    )
    text_config = MistralConfig(
        vocab_size=1064,  # published 32064
        hidden_size=128,  # published 4096
        intermediate_size=448,  # published 14336
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=1,  # published 8
        hidden_act="silu",
        max_position_embeddings=32768,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        sliding_window=None,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,  # published 32001
        bos_token_id=bos_token_id,
        eos_token_id=2,
    )
    return [LlavaNextConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_index=image_token_id,  # published 32000
        projector_hidden_act="gelu",
        vision_feature_select_strategy="default",
        vision_feature_layer=-2,
        multimodal_projector_bias=True,
        tie_word_embeddings=False,
        image_grid_pinpoints=image_grid_pinpoints,  # published [[336, 672], [672, 336], [672, 672], [1008, 336], ...]
        image_seq_length=(image_size // patch_size) ** 2,  # published 576
    )]
