"""Fuyu multimodal decoder (Adept 2023, "Fuyu-8B: A Multimodal Architecture for AI Agents"), after `adept/fuyu-8b`,
shrunk.

FuyuForCausalLM. No image encoder: the image is cut into 30 x 30 pixel patches, each flattened (30 * 30 * 3 = 2700
values, channels last) and projected by ONE linear layer (vision_embed_tokens) straight to the decoder width; the
projected patches replace (masked_scatter) the |SPEAKER| placeholder tokens of the prompt, laid out row by row with a
|NEWLINE| token (a normal word embedding) ending every patch row, so the decoder sees the image's 2-D layout through
the text stream. Decoder: Persimmon (LayerNorm pre-norm blocks, fused qkv projection with bias, per-head LayerNorm on
q and k (qk_layernorm), partial rotary embeddings on the first half of each head (partial_rotary_factor 0.5, theta
25000), squared-ReLU MLP, final LayerNorm), untied LM head. Position ids are plain 0..L-1 for every row (FuyuModel
does not shift them for left padding).
Transformers 5.24: the processor's legacy `image_patches` output is now the model's `pixel_values` argument (the same
(total_patches, 2700) tensor: the patches of all images of the batch concatenated), and `image_patches_indices` no
longer exists: the patch positions are the |SPEAKER| tokens in input_ids.
Shrunk: hidden 4096 -> 128, 36 layers -> 2, 64 heads -> 4 (head_dim 64 -> 32, 16 rotary dims), intermediate 16384
-> 512 (4x kept), vocab 262144 -> 1024 (|SPEAKER| 71011 -> 1000, |NEWLINE| 71019 -> 1008; <unk> 0 = pad, <s> 1,
</s> 2, <0x04> (boa) 7 kept). Patch size 30 and the 2700-wide patch projection are kept.
Inputs, as FuyuProcessor builds them (image processor: no resize below 1080 x 1920, pad with 1.0 to 1080 x 1920,
then rescale 1/255 and normalize with mean 0.5 / std 0.5, so padding becomes (1/255 - 0.5) / 0.5 = -0.992; the
image is cut back to whole patches; prompt "Generate a coco-style caption.\\n" stand-in pieces):
- sample 0: a 300 x 450 (H x W) image -> 10 x 15 = 150 patches; 10 x (15 |SPEAKER| + |NEWLINE|) = 160 image tokens,
  <s>, 10 prompt tokens, <0x04>: 172 tokens;
- sample 1: a 200 x 250 image -> cut to 210 x 270 (the extra pixels are padding) = 7 x 9 = 63 patches; 70 image
  tokens, <s>, 14 prompt tokens, <0x04>: 86 tokens, LEFT-padded with 0 to 172 (the processor always pads on the
  left), attention_mask 0 there.
input_ids / attention_mask (2, 172) int64, image_patches (213, 2700) float32.
Output: LM logits (2, 172, 1024).
"""
import math

import torch
from torch import nn
from transformers import FuyuConfig, FuyuForCausalLM, PersimmonConfig

batch_size = 2
patch_size = 30
num_channels = 3
vocab_size = 1024  # published 262144
speaker_id = 1000  # |SPEAKER|, the image placeholder; published 71011
newline_id = 1008  # |NEWLINE|; published 71019
pad_token_id, bos_token_id, eos_token_id, boa_token_id = 0, 1, 2, 7
image_sizes_hw = [(300, 450), (200, 250)]
prompt_lens = [10, 14]
pad_pixel = (1.0 / 255 - 0.5) / 0.5  # padding_value 1.0, then rescale + normalize


def _patches_and_tokens(h, w):
    # FuyuImageProcessor + FuyuProcessor._process_images for one image smaller than 1080 x 1920
    new_h, new_w = math.ceil(h / patch_size) * patch_size, math.ceil(w / patch_size) * patch_size
    image = torch.full((1, num_channels, new_h, new_w), pad_pixel)
    image[..., :h, :w] = torch.rand(1, num_channels, h, w) * 2.0 - 1.0  # normalized pixels in [-1, 1]
    patches = image.unfold(2, patch_size, patch_size).unfold(3, patch_size, patch_size).contiguous()
    patches = patches.view(1, num_channels, -1, patch_size, patch_size).permute(0, 2, 3, 4, 1)
    patches = patches.reshape(-1, num_channels * patch_size * patch_size)  # patchify_image
    rows, cols = new_h // patch_size, new_w // patch_size
    tokens = ([speaker_id] * cols + [newline_id]) * rows
    return patches, tokens


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = FuyuForCausalLM(config)

    def forward(self, input_ids, attention_mask, image_patches):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, pixel_values=image_patches).logits


def get_inputs():
    seqs, all_patches = [], []
    for (h, w), n in zip(image_sizes_hw, prompt_lens, strict=True):
        patches, image_tokens = _patches_and_tokens(h, w)
        all_patches.append(patches)
        prompt = torch.randint(10, speaker_id, (n,)).tolist()
        seqs.append(image_tokens + [bos_token_id] + prompt + [boa_token_id])
    seq_len = max(len(s) for s in seqs)
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, s in enumerate(seqs):  # left padding
        input_ids[i, seq_len - len(s):] = torch.tensor(s)
        attention_mask[i, seq_len - len(s):] = 1
    image_patches = torch.cat(all_patches, dim=0)
    return [input_ids, attention_mask, image_patches]


def get_init_inputs():
    # adept/fuyu-8b config.json. Kept: relu2, qk_layernorm, partial_rotary_factor 0.5, rope_theta 25000,
    # layer_norm_eps 1e-5, max_position_embeddings 16384, dropouts 0, initializer_range 0.02, untied LM head,
    # image_size 300, patch_size 30, 3 channels, bos 1 / eos 2.
    text_config = PersimmonConfig(
        vocab_size=vocab_size,  # published 262144
        hidden_size=128,  # published 4096
        intermediate_size=512,  # published 16384
        num_hidden_layers=2,  # published 36
        num_attention_heads=4,  # published 64
        hidden_act="relu2",
        max_position_embeddings=16384,
        initializer_range=0.02,
        layer_norm_eps=1e-5,
        tie_word_embeddings=False,
        rope_parameters={"rope_type": "default", "rope_theta": 25000.0, "partial_rotary_factor": 0.5},
        qk_layernorm=True,
        hidden_dropout=0.0,
        attention_dropout=0.0,
        pad_token_id=pad_token_id,  # the processor sets pad_token_id 0
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,
    )
    return [FuyuConfig(
        text_config=text_config,
        image_size=300,
        patch_size=patch_size,
        num_channels=num_channels,
        initializer_range=0.02,
        tie_word_embeddings=False,
        image_token_id=speaker_id,  # published 71011
    )]
