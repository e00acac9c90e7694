"""Qwen3-VL (Qwen team 2025, `Qwen/Qwen3-VL-*-Instruct`, Qwen3VLForConditionalGeneration), shrunk. What differs from
Qwen2-VL (hf_qwen2_vl) and is kept here:
  - vision tower: Conv3d patch embedding (patch 16, temporal patch 2) PLUS a learned absolute position table on a
    square grid (num_position_embeddings = side^2) that is bilinearly resampled (align_corners) to every image's
    own patch grid, by gathered indices and weights; 2-D axial rotary embedding; images of different sizes packed
    into one sequence with block-diagonal attention (cu_seqlens); gelu-tanh MLP with biases, LayerNorm;
  - DeepStack: the hidden states after several intermediate vision blocks (deepstack_visual_indexes) each go
    through their own 2 x 2 patch merger (with a post-shuffle LayerNorm) and are ADDED to the hidden states of the
    image tokens after the first decoder layers (one vision tap per decoder layer), on top of the final merger's
    features that replace the <|image_pad|> embeddings at the input;
  - text decoder: Qwen3 (q_norm / k_norm per head, GQA, no QKV bias) with INTERLEAVED multimodal RoPE: the rotary
    frequencies are assigned to the t / h / w position axes round-robin (t, h, w, t, h, w, ...) instead of in
    contiguous sections; image tokens get 3-D (t, h, w) positions, text tokens continue after the image.
Shrunk (from the Qwen3VL*Config defaults; no hub config is read): vision depth 27 -> 4, hidden 1152 -> 64, MLP
4304 -> 128, 16 heads -> 4, out_hidden_size 3584 -> 128 (= text hidden), position table 48 x 48 -> 8 x 8,
deepstack taps (8, 16, 24) -> (1, 2, 3); patch 16, merge 2, temporal patch 2 kept. Text: hidden 4096 -> 128,
32 layers -> 3 (one per deepstack tap), 32 heads -> 4, kv heads 32 -> 2, head_dim 128 -> 32 (mrope_section
[24, 20, 20] -> [6, 5, 5], same split of the rotary half), intermediate 22016 -> 384, vocab 151936 -> 1024
(special tokens moved from 151643.. to 1000..: <|endoftext|> 1000, <|im_start|> 1001, <|im_end|> 1002,
<|vision_start|> 1009, <|vision_end|> 1010, <|image_pad|> 1012, <|video_pad|> 1013).
Inputs, laid out as the processor returns them (computed by hand here): one image per sample, 64 x 96 (grid
(1, 4, 6) -> 24 patches -> 6 merged tokens) and 64 x 64 (grid (1, 4, 4) -> 16 patches -> 4 merged tokens);
pixel_values (40, 1536): rescaled uint8 patches normalised with mean = std = 0.5, each row 3 channels x 2 (the
still image repeated in time) x 16 x 16, rows in 2 x 2 merge-block order; image_grid_thw (2, 3); input_ids
(2, 31) following the chat template, the second sample left-padded by 4; attention_mask; mm_token_type_ids
(1 on image tokens, needed for the 3-D RoPE positions). Output: LM logits (2, 31, 1024).
"""
import torch
from torch import nn
from transformers import (
    Qwen3VLConfig,
    Qwen3VLForConditionalGeneration,
    Qwen3VLTextConfig,
    Qwen3VLVisionConfig,
)

batch_size = 2
patch_size = 16
merge_size = 2
temporal_patch_size = 2
image_sizes = [(64, 96), (64, 64)]  # (height, width) per sample, multiples of patch_size * merge_size
vocab_size = 1024
pad_token_id = 1000  # <|endoftext|>
im_start_id, im_end_id = 1001, 1002
vision_start_id, vision_end_id, image_token_id, video_token_id = 1009, 1010, 1012, 1013
image_mean = (0.5, 0.5, 0.5)
image_std = (0.5, 0.5, 0.5)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Qwen3VLForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, image_grid_thw, mm_token_type_ids):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            pixel_values=pixel_values,
            image_grid_thw=image_grid_thw,
            mm_token_type_ids=mm_token_type_ids,
        ).logits


def _patchify(image):
    # image (3, H, W) in [0, 1] -> normalised flat patches (H/16 * W/16, 3 * 2 * 16 * 16), rows grouped in 2 x 2
    # merge blocks, each row = channel, temporal, patch_h, patch_w (the Qwen2-VL / Qwen3-VL image processor layout).
    c, h, w = image.shape
    image = (image - torch.tensor(image_mean).view(3, 1, 1)) / torch.tensor(image_std).view(3, 1, 1)
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
            [im_start_id] + torch.randint(0, 1000, (6,)).tolist() + [im_end_id]  # system turn
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
    # Kept: gelu_pytorch_tanh vision MLP, patch 16, spatial_merge 2, temporal_patch 2; silu gated MLP, rms eps 1e-6,
    # no attention bias, interleaved mrope (rope_theta 5e6 as in the released Qwen3-VL configs).
    vision_config = Qwen3VLVisionConfig(
        depth=4,  # default 27
        hidden_size=64,  # default 1152
        intermediate_size=128,  # default 4304
        num_heads=4,  # default 16
        out_hidden_size=128,  # = text hidden size
        num_position_embeddings=64,  # default 2304 (48 x 48) -> 8 x 8
        deepstack_visual_indexes=[1, 2, 3],  # default (8, 16, 24)
        patch_size=patch_size,
        spatial_merge_size=merge_size,
        temporal_patch_size=temporal_patch_size,
    )
    text_config = Qwen3VLTextConfig(
        vocab_size=vocab_size,  # default 151936
        hidden_size=128,  # default 4096
        intermediate_size=384,  # default 22016
        num_hidden_layers=3,  # default 32
        num_attention_heads=4,  # default 32
        num_key_value_heads=2,
        head_dim=32,  # default 128
        rope_parameters={"rope_type": "default", "rope_theta": 5000000.0, "mrope_section": [6, 5, 5],
                         "mrope_interleaved": True},  # [24, 20, 20]
        bos_token_id=pad_token_id,
        eos_token_id=im_end_id,
        pad_token_id=pad_token_id,
    )
    return [Qwen3VLConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_id=image_token_id,  # published 151655
        video_token_id=video_token_id,  # published 151656
        vision_start_token_id=vision_start_id,  # published 151652
        vision_end_token_id=vision_end_id,  # published 151653
    )]
