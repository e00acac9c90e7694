"""Qwen2-VL (native-resolution ViT: Conv3d patch embedding over 2-frame temporal patches, 2-D axial rotary
embedding, images of different sizes packed into one sequence with block-diagonal attention, 2x2 patch merger
MLP into the LM width; merged image features replace the <|image_pad|> tokens; Qwen2 decoder with GQA, QKV bias
and multimodal RoPE "mrope" whose temporal / height / width sections take 3-D positions for image tokens),
after `Qwen/Qwen2-VL-2B-Instruct`, shrunk.

Qwen2VLForConditionalGeneration. One image per sample, of a different size in each sample, laid out as
Qwen2VLProcessor returns them (computed by hand here): sample 0 is a 56x84 image -> grid (t, h, w) = (1, 4, 6)
-> 24 patches -> 6 merged tokens; sample 1 is a 56x56 image -> grid (1, 4, 4) -> 16 patches -> 4 merged tokens.
pixel_values are the rescaled (uint8 / 255), CLIP-normalised patches of both images concatenated, each row
3 channels x 2 (the still image repeated along the temporal patch) x 14 x 14 = 1176 values, rows ordered in
2x2 merge blocks as the image processor does.
Vision: depth 32 -> 2, embed_dim 1280 -> 64, 16 heads -> 4 (head_dim 80 -> 16), mlp_ratio 4 kept, patch 14,
merge 2 and temporal patch 2 kept. Text: hidden 1536 -> 128, 28 layers -> 2, 12 heads -> 4, 2 kv heads kept,
head_dim 128 -> 32 (mrope_section [16, 24, 24] -> [4, 6, 6], same 2:3:3 split of the rotary half),
intermediate 8960 -> 768, vocab 151936 -> 1024 (special tokens moved from 151643.. to 1000..:
<|endoftext|> 1000, <|im_start|> 1001, <|im_end|> 1002, <|vision_start|> 1009, <|vision_end|> 1010,
<|image_pad|> 1012, <|video_pad|> 1013).
Inputs: input_ids (2, 31) following the chat template (system turn, user turn with <|vision_start|>
<|image_pad|> x n <|vision_end|> and a prompt, assistant header); sample 1 has 2 fewer image tokens and a
2-token shorter prompt, so it is left-padded by 4 (Qwen2-VL pads left for batched generation);
attention_mask; pixel_values (40, 1176); image_grid_thw (2, 3) = [[1, 4, 6], [1, 4, 4]];
mm_token_type_ids (2, 31) (1 on image tokens), which the processor also returns and which this transformers
version requires to build the 3-D mrope position ids. Output: LM logits (2, 31, 1024).
"""
import torch
from torch import nn
from transformers import (
    Qwen2VLConfig,
    Qwen2VLForConditionalGeneration,
    Qwen2VLTextConfig,
    Qwen2VLVisionConfig,
)

batch_size = 2
patch_size = 14
merge_size = 2
temporal_patch_size = 2
image_sizes = [(56, 84), (56, 56)]  # (height, width) per sample, multiples of patch_size * merge_size
vocab_size = 1024
pad_token_id = 1000  # <|endoftext|>
im_start_id, im_end_id = 1001, 1002
vision_start_id, vision_end_id, image_token_id, video_token_id = 1009, 1010, 1012, 1013
clip_mean = (0.48145466, 0.4578275, 0.40821073)
clip_std = (0.26862954, 0.26130258, 0.27577711)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Qwen2VLForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, image_grid_thw, mm_token_type_ids):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            pixel_values=pixel_values,
            image_grid_thw=image_grid_thw,
            mm_token_type_ids=mm_token_type_ids,
        ).logits


def _patchify(image):
    # image (3, H, W) in [0, 1] -> CLIP-normalised flat patches (H/14 * W/14, 3 * 2 * 14 * 14), as
    # Qwen2VLImageProcessor does: rows grouped in 2x2 merge blocks, each row = channel, temporal, patch_h, patch_w.
    c, h, w = image.shape
    image = (image - torch.tensor(clip_mean).view(3, 1, 1)) / torch.tensor(clip_std).view(3, 1, 1)
    gh, gw = h // patch_size, w // patch_size
    patches = image.reshape(c, gh // merge_size, merge_size, patch_size, gw // merge_size, merge_size, patch_size)
    patches = patches.permute(1, 4, 2, 5, 0, 3, 6)  # (gh/m, gw/m, m, m, c, p, p)
    patches = patches.unsqueeze(5).expand(-1, -1, -1, -1, -1, temporal_patch_size, -1, -1)
    return patches.reshape(gh * gw, c * temporal_patch_size * patch_size * patch_size), [1, gh, gw]


def get_inputs():
    pixel_values, grids, rows = [], [], []
    for i, (h, w) in enumerate(image_sizes):
        patches, grid = _patchify(torch.randint(0, 256, (3, h, w)).float() / 255)  # uint8 image, rescaled
        pixel_values.append(patches)
        grids.append(grid)
        n_image_tokens = (h // patch_size) * (w // patch_size) // merge_size ** 2
        prompt_len = 8 - 2 * i
        rows.append(
            [im_start_id] + torch.randint(0, 1000, (6,)).tolist() + [im_end_id]  # system\nYou are a helpful...
            + [im_start_id] + torch.randint(0, 1000, (2,)).tolist()  # user\n
            + [vision_start_id] + [image_token_id] * n_image_tokens + [vision_end_id]
            + torch.randint(0, 1000, (prompt_len,)).tolist() + [im_end_id]  # prompt
            + [im_start_id] + torch.randint(0, 1000, (2,)).tolist()  # assistant\n
        )
    seq_len = max(len(r) for r in rows)
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, r in enumerate(rows):  # left padding
        input_ids[i, seq_len - len(r):] = torch.tensor(r)
        attention_mask[i, seq_len - len(r):] = 1
    mm_token_type_ids = (input_ids == image_token_id).int()
    pixel_values = torch.cat(pixel_values, dim=0)
    image_grid_thw = torch.tensor(grids, dtype=torch.long)
    return [input_ids, attention_mask, pixel_values, image_grid_thw, mm_token_type_ids]


def get_init_inputs():
    # Qwen/Qwen2-VL-2B-Instruct config.json. Kept: quick_gelu ViT, patch 14, spatial_merge 2, temporal_patch 2,
    # vision rope theta 1e4; silu gated MLP, rms_norm_eps 1e-6, rope_theta 1e6 with mrope, no sliding window,
    # max_position_embeddings 32768, tied embeddings (2B), bos <|endoftext|>, eos <|im_end|>.
    vision_config = Qwen2VLVisionConfig(
        depth=2,  # published 32
        embed_dim=64,  # published 1280
        hidden_size=128,  # published 1536 (= text hidden size)
        hidden_act="quick_gelu",
        mlp_ratio=4,
        num_heads=4,  # published 16
        in_channels=3,
        patch_size=patch_size,
        spatial_merge_size=merge_size,
        temporal_patch_size=temporal_patch_size,
    )
    text_config = Qwen2VLTextConfig(
        vocab_size=vocab_size,  # published 151936
        hidden_size=128,  # published 1536
        intermediate_size=768,  # published 8960
        num_hidden_layers=2,  # published 28
        num_attention_heads=4,  # published 12
        num_key_value_heads=2,
        hidden_act="silu",
        max_position_embeddings=32768,
        rms_norm_eps=1e-6,
        use_sliding_window=False,
        max_window_layers=2,  # published 28 (= num layers)
        rope_parameters={"rope_type": "mrope", "mrope_section": [4, 6, 6], "rope_theta": 1000000.0},  # [16, 24, 24]
        tie_word_embeddings=True,
        bos_token_id=pad_token_id,
        eos_token_id=im_end_id,
        pad_token_id=pad_token_id,
    )
    return [Qwen2VLConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_id=image_token_id,  # published 151655
        video_token_id=video_token_id,  # published 151656
        vision_start_token_id=vision_start_id,  # published 151652
        vision_end_token_id=vision_end_id,  # published 151653
        tie_word_embeddings=True,
    )]
