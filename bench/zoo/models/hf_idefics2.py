"""Idefics2 vision-language model (SigLIP-style NaViT vision encoder with patch padding masks and per-image
bucketed position ids, a connector = SwiGLU modality projection + perceiver resampler that compresses each image
to a fixed set of latents with GQA cross-attention, whose outputs replace the `<image>` placeholder tokens inside
the Mistral text sequence (sliding-window attention) before the LM head), after `HuggingFaceM4/idefics2-8b`, shrunk.

Shrunk: vision hidden 1152 -> 128, intermediate 4304 -> 256, 27 layers -> 2, 16 heads -> 4, image 980 -> 112
(patch 14 kept: 8x8 patches); perceiver 64 latents -> 8, depth 3 -> 2, 16 heads -> 4, head_dim 96 -> 32,
kv heads 4 -> 2; text hidden 4096 -> 128, intermediate 14336 -> 256, 32 layers -> 2, 32 heads -> 4, kv heads 8 -> 2,
vocab 32003 -> 1000, sliding_window 4096 -> 32 (shorter than the 48-token sequence so it bites),
special ids <fake_token_around_image> 32000 -> 997, <image> 32001 -> 998.
Inputs: input_ids (2, 48) = BOS, 10 text tokens, <fake>, 8 <image> tokens, <fake>, 27 text tokens; attention_mask
(2, 48) whose second sample is right-padded (5 positions, pad id 0); pixel_values (2, 1, 3, 112, 112) (one image per
sample); pixel_attention_mask (2, 1, 112, 112) where the second image's last 28 pixel columns are padding (zeros).
Output: LM logits (2, 48, 1000).
"""
import torch
from torch import nn
from transformers import (
    Idefics2Config,
    Idefics2ForConditionalGeneration,
    Idefics2PerceiverConfig,
    Idefics2VisionConfig,
    MistralConfig,
)

batch_size = 2
seq_len = 48
vocab_size = 1000
image_size = 112
fake_image_token_id = 997
image_token_id = 998
image_seq_len = 8  # perceiver latents per image


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Idefics2ForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, pixel_attention_mask):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            pixel_values=pixel_values,
            pixel_attention_mask=pixel_attention_mask,
        ).logits


def get_inputs():
    input_ids = torch.randint(3, fake_image_token_id, (batch_size, seq_len))
    input_ids[:, 0] = 1  # BOS
    input_ids[:, 11] = fake_image_token_id
    input_ids[:, 12:12 + image_seq_len] = image_token_id
    input_ids[:, 12 + image_seq_len] = fake_image_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    input_ids[1, -5:] = 0  # pad id
    pixel_values = torch.randn(batch_size, 1, 3, image_size, image_size)
    pixel_attention_mask = torch.ones(batch_size, 1, image_size, image_size, dtype=torch.long)
    pixel_attention_mask[1, 0, :, -28:] = 0
    pixel_values = pixel_values * pixel_attention_mask[:, :, None]  # padded pixels are zeros
    return [input_ids, attention_mask, pixel_values, pixel_attention_mask]


def get_init_inputs():
    # HuggingFaceM4/idefics2-8b config.json. Kept: patch 14, gelu_pytorch_tanh vision MLP, silu resampler,
    # rms_norm_eps 1e-5, rope_theta 10000, untied LM head, pad_token_id 0.
    vision_config = Idefics2VisionConfig(
        hidden_size=128,  # published 1152
        intermediate_size=256,  # published 4304
        num_hidden_layers=2,  # published 27
        num_attention_heads=4,  # published 16
        image_size=image_size,  # published 980
        patch_size=14,  # published 14
    )
    perceiver_config = Idefics2PerceiverConfig(
        hidden_act="silu",
        hidden_size=128,  # = text hidden (published 4096)
        rms_norm_eps=1e-5,
        resampler_n_latents=image_seq_len,  # published 64
        resampler_depth=2,  # published 3
        resampler_n_heads=4,  # published 16
        resampler_head_dim=32,  # published 96
        num_key_value_heads=2,  # published 4
    )
    text_config = MistralConfig(
        vocab_size=vocab_size,  # published 32003
        hidden_size=128,  # published 4096
        intermediate_size=256,  # published 14336
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        max_position_embeddings=32768,  # published 32768
        rms_norm_eps=1e-5,
        rope_theta=10000.0,
        sliding_window=32,  # published 4096
        pad_token_id=0,
    )
    return [Idefics2Config(
        vision_config=vision_config,
        perceiver_config=perceiver_config,
        text_config=text_config,
        image_token_id=image_token_id,  # published 32001
        tie_word_embeddings=False,
    )]
