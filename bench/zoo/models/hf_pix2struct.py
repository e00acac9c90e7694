"""Pix2Struct screenshot/image-to-text model (variable-resolution ViT encoder over aspect-ratio-preserving flattened
patches with learned row / column embeddings and padding patches masked, T5-style decoder with relative-position
buckets, RMSNorm and gated-GELU FFNs), after `google/pix2struct-textcaps-base`, shrunk.
Pix2StructForConditionalGeneration, run with teacher forcing; output: logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import (
    Pix2StructConfig,
    Pix2StructForConditionalGeneration,
    Pix2StructTextConfig,
    Pix2StructVisionConfig,
)

batch_size = 2
patch_size = 16
max_patches = 64  # processor default 2048
image_grids = [(6, 10), (8, 8)]  # (rows, cols) of patches after the aspect-preserving resize
decoder_seq_len = 16
caption_lens = [16, 11]
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Pix2StructForConditionalGeneration(config)

    def forward(self, flattened_patches, attention_mask, decoder_input_ids, decoder_attention_mask):
        return self.model(
            flattened_patches=flattened_patches,
            attention_mask=attention_mask,
            decoder_input_ids=decoder_input_ids,
            decoder_attention_mask=decoder_attention_mask,
        ).logits


def get_inputs():
    # flattened patches as Pix2StructImageProcessor builds them: [row id, col id, 16*16*3 pixels], ids from 1,
    # zero rows past the image's own patches (masked)
    depth = patch_size * patch_size * 3
    flattened_patches = torch.zeros(batch_size, max_patches, 2 + depth)
    attention_mask = torch.zeros(batch_size, max_patches)
    for i, (rows, cols) in enumerate(image_grids):
        n = rows * cols
        image = torch.randn(3, rows, patch_size, cols, patch_size)
        patches = image.permute(1, 3, 2, 4, 0).reshape(n, depth)
        row_ids = torch.arange(rows).repeat_interleave(cols) + 1
        col_ids = torch.arange(cols).repeat(rows) + 1
        flattened_patches[i, :n] = torch.cat([row_ids[:, None].float(), col_ids[:, None].float(), patches], dim=1)
        attention_mask[i, :n] = 1
    # decoder: the caption shifted right behind the start token (pad 0), right-padded
    decoder_input_ids = torch.full((batch_size, decoder_seq_len), pad_token_id)
    decoder_attention_mask = torch.zeros(batch_size, decoder_seq_len, dtype=torch.long)
    for i, n in enumerate(caption_lens):
        decoder_input_ids[i, 1:n] = torch.randint(2, vocab_size, (n - 1,))
        decoder_attention_mask[i, :n] = 1
    return [flattened_patches, attention_mask, decoder_input_ids, decoder_attention_mask]


def get_init_inputs():
    # Kept: patch 16 (patch_embed_hidden_size 768 = 16*16*3), gelu_new gated FFNs, layer_norm eps 1e-6,
    # 32 relative buckets / max distance 128, untied LM head, decoder start = pad = 0, eos 1.
    vision_config = Pix2StructVisionConfig(
        hidden_size=64,  # published 768
        patch_embed_hidden_size=patch_size * patch_size * 3,
        d_ff=256,  # published 2048
        d_kv=16,  # published 64
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        seq_len=max_patches,  # published 4096
    )
    text_config = Pix2StructTextConfig(
        vocab_size=vocab_size,  # published 50244
        hidden_size=64,  # published 768
        d_kv=16,  # published 64
        d_ff=256,  # published 2048
        num_layers=2,  # published 12
        num_heads=4,  # published 12
        pad_token_id=pad_token_id,
        eos_token_id=1,
        decoder_start_token_id=pad_token_id,
    )
    return [Pix2StructConfig(vision_config=vision_config, text_config=text_config, tie_word_embeddings=False)]
