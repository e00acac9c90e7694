"""Molmo2 vision-language model (AllenAI, `allenai/Molmo2-8B`, Molmo2ForConditionalGeneration), shrunk. Three parts:
(1) a SigLIP-style ViT (linear patch embedding of flattened 14 x 14 patches, learned absolute positions, pre-LayerNorm
bidirectional attention with biases, GELU-tanh MLP) run over every crop of every image: one low-resolution global
view plus high-resolution crops; (2) an attention-pooling adapter: the outputs of TWO ViT layers (vision_feature_layer)
are concatenated per patch, the patches of all crops are flattened into one table, and each output token gathers its
pool_h x pool_w window of patches by index (image_token_pooling, -1 = padding), forms a query as the window mean and
cross-attends to the window's patches (masked padding), then a SwiGLU MLP projects to the LLM width; (3) a Qwen3-style
decoder (per-head q / k RMSNorm, GQA, RoPE, SwiGLU) whose image-patch token embeddings get the pooled features ADDED to
them (not replaced), and whose causal mask is opened into one bidirectional block over all image tokens
(mm_token_type_ids == 1: the image-patch, row-separator and image start / end tokens attend to each other in both
directions). The embedding table is the base vocab plus 128 extra special tokens; untied LM head over the base vocab.

Shrunk: ViT hidden 1152 -> 64, 25 layers -> 3, 16 heads of 72 -> 4 of 16, intermediate 4304 -> 128, image 378 -> 56
(27 x 27 -> 4 x 4 patches per crop); adapter 16 heads of 72 -> 4 of 16, intermediate 18944 -> 128, feature layers
[24, 18] (the last and the 7th before it) -> [2, 0]; LLM hidden 4096 -> 64, 36 layers -> 2, 32 heads (8 kv) of 128 ->
4 (2 kv) of 16, intermediate 12288 -> 128, vocab 151936 -> 1000 (the special token ids 151936 + k -> 1000 + k).
Kept: patch size 14, 2 x 2 pooling, 128 additional vocab, qk_norm_type "qwen3", pre-norm (norm_after False), column
tokens after each pooled row, a low-res view followed by a high-res view per image (one high-res crop here, up to
max_crops published), rope default on all layers.
Inputs: input_ids (2, 32) each holding one image as 16 image tokens (low-res start, 2 x (2 patches + col), end, then
start, 2 x (2 patches + col), end); pixel_values (4, 16, 588): 2 crops per image, 16 flattened patches each;
image_token_pooling (16, 4) patch indices; image_grids (2, 4) = [2, 2, 2, 2] per image; mm_token_type_ids (2, 32).
Output: LM logits (2, 32, 1000).
"""
import torch
from torch import nn
from transformers import (
    Molmo2AdapterConfig,
    Molmo2Config,
    Molmo2ForConditionalGeneration,
    Molmo2TextConfig,
    Molmo2VisionConfig,
)

batch_size = 2
seq_len = 32
image_size = 56
patch_size = 14
vocab_size = 1000
patches_per_side = image_size // patch_size  # 4
# special tokens in the extra vocabulary (published ids 151936 + k)
IM_START, IM_END, IM_PATCH, IM_COL, LOW_RES_IM_START = (vocab_size + k for k in (0, 1, 2, 3, 4))


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Molmo2ForConditionalGeneration(config)

    def forward(self, input_ids, pixel_values, image_token_pooling, image_grids, mm_token_type_ids):
        return self.model(input_ids=input_ids, pixel_values=pixel_values, image_token_pooling=image_token_pooling,
                          image_grids=image_grids, mm_token_type_ids=mm_token_type_ids, use_cache=False).logits


def _pooling_windows(offset):
    """Indices of the 2 x 2 pooling windows over one crop's 4 x 4 patch grid (as the image processor builds them)."""
    grid = torch.arange(patches_per_side ** 2).reshape(patches_per_side, patches_per_side)
    return grid.reshape(2, 2, 2, 2).permute(0, 2, 1, 3).reshape(4, 4) + offset


def get_inputs():
    image_tokens = []
    for start in (LOW_RES_IM_START, IM_START):  # low-res global view, then the high-res view
        image_tokens += [start] + [IM_PATCH, IM_PATCH, IM_COL] * 2 + [IM_END]
    image_tokens = torch.tensor(image_tokens)  # 16 tokens, 8 of them patches
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    mm_token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for b, pos in enumerate((6, 12)):
        input_ids[b, pos:pos + 16] = image_tokens
        mm_token_type_ids[b, pos:pos + 16] = 1
    num_crops = 2 * batch_size  # per image: the low-res view and one high-res crop
    pixel_values = torch.randn(num_crops, patches_per_side ** 2, patch_size * patch_size * 3)
    # crops are numbered image by image; each output token pools a 2 x 2 window of one crop
    image_token_pooling = torch.cat([_pooling_windows(16 * crop) for crop in range(num_crops)])
    image_grids = torch.tensor([[2, 2, 2, 2]] * batch_size)  # [low-res rows, cols, high-res rows, cols]
    return [input_ids, pixel_values, image_token_pooling, image_grids, mm_token_type_ids]


def get_init_inputs():
    # allenai/Molmo2-8B (the Molmo2*Config defaults), shrunk where commented.
    vision_config = Molmo2VisionConfig(
        hidden_size=64,  # published 1152
        intermediate_size=128,  # published 4304
        num_hidden_layers=3,  # published 25
        num_attention_heads=4,  # published 16
        num_key_value_heads=4,
        head_dim=16,  # published 72
        image_size=[image_size, image_size],  # published 378 x 378
        patch_size=patch_size,
    )
    adapter_config = Molmo2AdapterConfig(
        vision_feature_layer=[2, 0],  # published [24, 18]
        hidden_size=64,  # = ViT width
        num_attention_heads=4,  # published 16
        num_key_value_heads=4,
        head_dim=16,  # published 72
        intermediate_size=128,  # published 18944
        text_hidden_size=64,
    )
    text_config = Molmo2TextConfig(
        hidden_size=64,  # published 4096
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        head_dim=16,  # published 128
        vocab_size=vocab_size,  # published 151936
        num_hidden_layers=2,  # published 36
        intermediate_size=128,  # published 12288
    )
    return [Molmo2Config(
        vision_config=vision_config,
        adapter_config=adapter_config,
        text_config=text_config,
        image_start_token_id=IM_START,
        low_res_image_start_token_id=LOW_RES_IM_START,
        image_end_token_id=IM_END,
        image_patch_id=IM_PATCH,
        frame_start_token_id=vocab_size + 7,
        frame_end_token_id=vocab_size + 8,
    )]
