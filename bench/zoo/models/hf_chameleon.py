"""Chameleon (Chameleon Team 2024, "Chameleon: Mixed-Modal Early-Fusion Foundation Models"): early fusion, images are
turned into discrete tokens of the same vocabulary as the text and one decoder-only transformer runs over the mixed
sequence. The image tokenizer is a VQ-GAN encoder (Make-A-Scene): conv stem, one residual block (GroupNorm(32) +
SiLU + 3x3 convs, 1x1 shortcut where widths change) per resolution level with asymmetric-padded stride-2 conv
downsampling between levels (16x overall), a middle block of residual / single-head spatial self-attention /
residual, GroupNorm + SiLU + conv to the latent, a 1x1 quant conv and nearest-codebook vector quantization (argmin of
squared distances); each code is mapped to its BPE id (the codebook's IMGIMG* vocabulary entries, decoded from their
names), embedded with the text embedding table and scattered into the prompt at the <image> placeholders. The decoder
is Llama-like (pre-RMSNorm, RoPE, SwiGLU MLP) with QK-norm: queries and keys are LayerNormed over each head's
dimensions with a separate gamma / beta per head before RoPE. The LM head's logits for the image-code tokens are set to
the dtype minimum (text generation may not emit bare image codes). After `facebook/chameleon-7b`, shrunk.

ChameleonForConditionalGeneration. Decoder: hidden 4096 -> 128, 32 layers -> 2, 32 heads -> 4 (head size 128 -> 32;
kv heads = heads, as published), intermediate 11008 -> 344, vocab 65536 -> 1024. VQ-GAN: 512 x 512 images -> 64 x 64
(16x downsampling kept: 4 x 4 = 16 image tokens instead of 32 x 32 = 1024), base channels 128 -> 32 (channel
multipliers (1, 1, 2, 2, 4) kept, so widths 32..128), 2 residual blocks per level -> 1, codebook 8192 -> 256 entries,
latent / code dim 256 -> 64. Kept: vanilla middle attention, no attention at other resolutions, no double latent,
swin_norm False (the 7B's pre-norm layers), model_parallel_size 1, rope_theta 1e4, rms_norm_eps 1e-5, untied head.
Vocabulary map (built here, as the published config carries the tokenizer's): the 256 image codes are BPE ids 4..259
("IMGIMG" + the code's decimal digits written as letters A-J + "Z"), "<image>" 300, image start "<racm3:break>" 301,
image end "<eoss>" 302, "<reserved08706>" (the chat separator) 303; <s> 0, <pad> 1, </s> 2.
Inputs: input_ids (2, 48) and attention_mask as ChameleonProcessor builds them: <s>, 8 text tokens, <racm3:break>,
16 x <image>, <eoss>, text, separator; the second sample has 5 fewer text tokens and is right-padded with <pad> (mask
0); pixel_values (2, 3, 64, 64), one image per sample.
Output: logits (2, 48, 1024).
"""
import torch
from torch import nn
from transformers import ChameleonConfig, ChameleonForConditionalGeneration, ChameleonVQVAEConfig

batch_size = 2
image_size = 64  # published 512
num_image_tokens = (image_size // 16) ** 2  # 16 (published 1024)
seq_len = 48
vocab_size = 1024  # published 65536
num_codes = 256  # published 8192
first_code_id = 4
bos_id, pad_id, eos_id = 0, 1, 2
image_token_id, boi_id, eoi_id, sep_id = 300, 301, 302, 303
first_text_id = 304
prefix_len = 8  # text tokens between <s> and the image


def _code_name(code):
    return "IMGIMG" + "".join(chr(ord("A") + int(d)) for d in str(code)) + "Z"


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ChameleonForConditionalGeneration(config)

    def forward(self, input_ids, pixel_values, attention_mask):
        return self.model(input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(first_text_id, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, 0] = bos_id
    input_ids[:, prefix_len + 1] = boi_id
    input_ids[:, prefix_len + 2 : prefix_len + 2 + num_image_tokens] = image_token_id
    input_ids[:, prefix_len + 2 + num_image_tokens] = eoi_id
    input_ids[0, -1] = sep_id
    input_ids[1, -6] = sep_id
    input_ids[1, -5:] = pad_id
    attention_mask[1, -5:] = 0
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    return [input_ids, pixel_values, attention_mask]


def get_init_inputs():
    # facebook/chameleon-7b config.json. Kept: silu, rms_norm_eps 1e-5, rope_theta 1e4, max_position_embeddings 4096,
    # num_key_value_heads = heads, no attention / MLP bias, swin_norm False, model_parallel_size 1, untied head,
    # bos / pad / eos 0 / 1 / 2; VQ: channel_multiplier (1, 1, 2, 2, 4), attn_type "vanilla", attn_resolutions [],
    # double_latent False, dropout 0.
    vocabulary_map = {"<s>": bos_id, "<pad>": pad_id, "</s>": eos_id, "<image>": image_token_id,
                      "<racm3:break>": boi_id, "<eoss>": eoi_id, "<reserved08706>": sep_id}
    vocabulary_map.update({_code_name(code): first_code_id + code for code in range(num_codes)})
    vq_config = ChameleonVQVAEConfig(
        embed_dim=64,  # published 256
        num_embeddings=num_codes,  # published 8192
        double_latent=False,
        latent_channels=64,  # published 256
        resolution=image_size,  # published 512
        in_channels=3,
        base_channels=32,  # published 128
        channel_multiplier=[1, 1, 2, 2, 4],
        num_res_blocks=1,  # published 2
        attn_resolutions=[],
        dropout=0.0,
        attn_type="vanilla",
    )
    return [ChameleonConfig(
        vocab_size=vocab_size,  # published 65536
        hidden_size=128,  # published 4096
        intermediate_size=344,  # published 11008
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        hidden_act="silu",
        max_position_embeddings=4096,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        attention_bias=False,
        mlp_bias=False,
        attention_dropout=0.0,
        model_parallel_size=1,
        swin_norm=False,
        tie_word_embeddings=False,
        bos_token_id=bos_id,
        pad_token_id=pad_id,
        eos_token_id=eos_id,
        vq_config=vq_config,
        vocabulary_map=vocabulary_map,  # published: the tokenizer's 65536-entry map
    )]
