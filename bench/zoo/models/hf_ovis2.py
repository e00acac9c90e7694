"""Ovis2 vision-language model (AIDC-AI, "Ovis: Structural Embedding Alignment for Multimodal Large Language
Model"; `AIDC-AI/Ovis2-2B`), shrunk, one prefill forward of an image + text prompt. Instead of projecting the
visual features with an MLP, Ovis turns them into probabilistic visual tokens: an AIMv2-style ViT (conv patch
embedding, RMSNorm, learned positions, pre-RMSNorm SwiGLU blocks, no biases) encodes each image (and each tile of
a cropped image); hidden_stride 2 space-to-depth merges 2 x 2 neighbouring patches into one 4 x wider vector; a
Linear maps it to logits over a visual vocabulary, which are LayerNorm'ed and softmaxed (tokenize_function
"softmax"); the probability vectors (padded with zeros for the 5 visual-indicator rows) are multiplied with a
learned visual embedding table (a dense (tokens x visual_vocab) @ (visual_vocab x hidden) matmul: a soft
embedding lookup). The result replaces the `<IMG_ATOM>` placeholders (masked_scatter); the five structural
indicator tokens (<IMG_START>, <IMG_GRID>, <IMG_COL>, <IMG_ROW>, <IMG_END>) are replaced by the embedding-table
rows reserved for them (boolean-mask assignment, only for the indicators present). A Qwen2 decoder (GQA with
biases on q / k / v, RoPE, SwiGLU, tied LM head) then runs on the mixed sequence.

Ovis2ForConditionalGeneration (sdpa; use_cache at its default, a DynamicCache is filled); the output is the LM
logits (2, 63, 1000).
Shrunk: vision hidden 1024 -> 64, 24 layers -> 2, 8 heads -> 4, intermediate 2816 -> 176, images 448 -> 64
(patch 14 -> 8: 64 patches, 16 visual tokens per image after the 2 x 2 merge; published 256), visual vocabulary
16384 -> 1024; text (Qwen2.5-1.5B) hidden 1536 -> 64, 28 layers -> 2, 12 heads / 2 kv -> 4 / 2, intermediate
8960 -> 192, vocab 151936 -> 1000 (image token 151665 -> 990, indicators 151666-151670 -> 991-995).
Kept: hidden_stride 2, 5 visual indicator tokens, softmax tokenisation, rms_norm_eps 1e-5 (vision) / 1e-6
(text), rope_theta 1e6, tied embeddings.
Inputs: pixel_values (4, 3, 64, 64): the first prompt's image cropped as a 1 x 2 grid (a global view and two
tiles, as Ovis2ImageProcessor's crop_to_patches gives), the second prompt's image uncropped; input_ids (2, 63)
laid out as Ovis2Processor does: <IMG_START> atoms <IMG_GRID> atoms <IMG_COL> atoms <IMG_END> for the first (48
atoms) and <IMG_START> atoms <IMG_GRID> <IMG_END> (16 atoms) for the second, then text; the second prompt is
left-padded by 33 tokens (pad 999); attention_mask.
"""
import torch
from torch import nn
from transformers import Ovis2Config, Ovis2ForConditionalGeneration, Ovis2VisionConfig, Qwen2Config

batch_size = 2
image_size = 64
tokens_per_image = 16
grids = [(1, 2), (1, 1)]  # per prompt: crop grid (rows, cols)
text_before, text_after = 6, 5
vocab_size = 1000
image_token_id = 990
img_start, img_grid, img_col, img_row, img_end = 991, 992, 993, 994, 995
pad_token_id = 999


def _prompt(grid):
    rows, cols = grid
    atoms = [image_token_id] * tokens_per_image
    ids = [img_start, *atoms, img_grid]
    n_images = 1
    if rows * cols > 1:
        for r in range(rows):
            for c in range(cols):
                ids += atoms
                n_images += 1
                if c < cols - 1:
                    ids.append(img_col)
            if r < rows - 1:
                ids.append(img_row)
    ids.append(img_end)
    before = torch.randint(1, image_token_id, (text_before,)).tolist()
    after = torch.randint(1, image_token_id, (text_after,)).tolist()
    return before + ids + after, n_images


seq_len = 63  # the longer prompt: 6 + (1 + 16 + 1 + 16 + 1 + 16 + 1) + 5


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Ovis2ForConditionalGeneration(config)

    def forward(self, input_ids, pixel_values, attention_mask):
        return self.model(input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.full((batch_size, seq_len), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    n_images = 0
    for b in range(batch_size):
        ids, n = _prompt(grids[b % len(grids)])
        input_ids[b, seq_len - len(ids):] = torch.tensor(ids)  # left padding
        attention_mask[b, seq_len - len(ids):] = 1
        n_images += n
    # Ovis2ImageProcessor: rescale to [0, 1], normalise with the CLIP mean / std
    mean = torch.tensor([0.48145466, 0.4578275, 0.40821073]).view(1, 3, 1, 1)
    std = torch.tensor([0.26862954, 0.26130258, 0.27577711]).view(1, 3, 1, 1)
    pixel_values = (torch.rand(n_images, 3, image_size, image_size) - mean) / std
    return [input_ids, pixel_values, attention_mask]


def get_init_inputs():
    # AIDC-AI/Ovis2-2B (the Ovis2Config / Ovis2VisionConfig defaults, Qwen2.5-1.5B text). Kept: hidden_stride 2,
    # num_visual_indicator_tokens 5, tokenize_function softmax, silu, no qkv / mlp bias in the vision tower,
    # rms_norm_eps 1e-5 (vision) / 1e-6 (text), rope_theta 1e6, tied embeddings.
    vision_config = Ovis2VisionConfig(
        hidden_size=64,  # published 1024
        intermediate_size=176,  # published 2816
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 8
        image_size=image_size,  # published 448
        patch_size=8,  # published 14
        vocab_size=1024,  # published 16384
        hidden_stride=2,
        num_visual_indicator_tokens=5,
        tokenize_function="softmax",
    )
    text_config = Qwen2Config(
        vocab_size=vocab_size,  # published 151936
        hidden_size=64,  # published 1536
        intermediate_size=192,  # published 8960
        num_hidden_layers=2,  # published 28
        num_attention_heads=4,  # published 12
        num_key_value_heads=2,
        max_position_embeddings=32768,
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
    )
    return [Ovis2Config(
        vision_config=vision_config,
        text_config=text_config,
        image_token_id=image_token_id,  # published 151665
        visual_indicator_token_ids=[img_start, img_grid, img_col, img_row, img_end],  # published 151666-151670
        vocab_size=vocab_size,
        hidden_size=64,  # = the text hidden (published 1536)
        tie_word_embeddings=True,
    )]
