"""LayoutLMv3 (`microsoft/layoutlmv3-base`, Huang et al., ACM MM 2022, "LayoutLMv3: Pre-training for Document AI
with Unified Text and Image Masking"), shrunk, with the token-classification head used for form understanding
(FUNSD-style entity labelling). One bidirectional Transformer reads OCR words and image patches together. Text
embeddings are RoBERTa's (word + token type + padding-aware position ids from a cumsum over non-pad tokens) plus a
layout embedding: the word's box (x0, y0, x1, y1 on a 0-1000 grid) and its clipped height and width each look up
a table and the six vectors are concatenated (not summed, as in v1) to the hidden width. The page image is cut
into 16 x 16 patches by a strided conv (no CNN backbone), a CLS token is prepended, learned absolute position
embeddings are added and the result LayerNorm'ed; the patch tokens get boxes of their own grid cells (the CLS a
whole-page box) and position ids of their own, counted from 0. Text and patch tokens are concatenated (the padding mask extended with ones for the patches), and every
layer (post-LayerNorm, GELU MLP) adds one shared attention bias computed once: a T5-style bucketed 1D relative
position bias (32 log-spaced bins up to 128) plus 2D spatial biases over the x0 and y1 coordinate differences (64
bins up to 256), looked up from per-head tables by gathered bucket indices and divided by sqrt(head_dim). The
head (dropout, dense, tanh, dense) labels the text tokens only (the patch positions are sliced off).

LayoutLMv3ForTokenClassification, eager attention.
Shrunk: hidden 768 -> 96 (layout embedding split 4 x 128 coordinate + 2 x 128 shape -> 4 x 16 + 2 x 16), 12 layers
-> 2, 12 heads -> 4, intermediate 3072 -> 192, vocab 50265 -> 1000, max positions 514 -> 130, page image 224 px ->
96 px (14 x 14 -> 6 x 6 patches).
Kept: patch 16, rel_pos_bins 32 / max_rel_pos 128, rel_2d_pos_bins 64 / max_rel_2d_pos 256, 1024-entry 2D position
tables, layer_norm_eps 1e-5, pad id 1 (positions counted from 2), GELU; 7 labels (FUNSD's BIO tags).
Inputs: input_ids (2, 40) with the second document right-padded by 6, bbox (2, 40, 4) (word boxes on the 0-1000
grid, zeros at padding), attention_mask (2, 40), pixel_values (2, 3, 96, 96). Output: token logits (2, 40, 7).
"""
import torch
from torch import nn
from transformers import LayoutLMv3Config, LayoutLMv3ForTokenClassification

batch_size = 2
seq_len = 40
image_size = 96
vocab_size = 1000
pad_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        config._attn_implementation = "eager"
        self.model = LayoutLMv3ForTokenClassification(config)

    def forward(self, input_ids, bbox, attention_mask, pixel_values):
        return self.model(input_ids=input_ids, bbox=bbox, attention_mask=attention_mask,
                          pixel_values=pixel_values).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 0  # <s>
    x0 = torch.randint(0, 900, (batch_size, seq_len))
    y0 = torch.randint(0, 960, (batch_size, seq_len))
    x1 = x0 + torch.randint(10, 100, (batch_size, seq_len))
    y1 = y0 + torch.randint(10, 40, (batch_size, seq_len))
    bbox = torch.stack([x0, y0, x1, y1], dim=-1)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -6:] = pad_token_id
    bbox[1, -6:] = 0
    attention_mask[1, -6:] = 0
    mean = torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1)
    pixel_values = (torch.rand(batch_size, 3, image_size, image_size) - mean) / 0.5
    return [input_ids, bbox, attention_mask, pixel_values]


def get_init_inputs():
    return [LayoutLMv3Config(
        vocab_size=vocab_size,  # published 50265
        hidden_size=96,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=192,  # published 3072
        max_position_embeddings=130,  # published 514
        coordinate_size=16,  # published 128
        shape_size=16,  # published 128
        input_size=image_size,  # published 224
        patch_size=16,
        rel_pos_bins=32,
        max_rel_pos=128,
        rel_2d_pos_bins=64,
        max_rel_2d_pos=256,
        max_2d_position_embeddings=1024,
        has_relative_attention_bias=True,
        has_spatial_attention_bias=True,
        num_labels=7,
        pad_token_id=pad_token_id,
    )]
