"""Step 3.7 Flash vision-language MoE model (StepFun, `stepfun-ai/Step-3.7-Flash`,
Step3p7ForConditionalGeneration), shrunk: images enter a decoder-only MoE LM as projected vision tokens, one global
view per image plus a variable number of local crops. Vision tower: a bias-free conv patch embedding plus learned
absolute positions (bilinearly interpolated when a view's grid differs from the table), pre-LayerNorm, ViT layers
with 2-D axial RoPE on q / k (row / column frequencies), quick-GELU MLP and LayerScale (lambda 0.1) on both residual
branches, then two stride-2 3 x 3 convs that halve the grid twice while doubling the width twice (a 16x token
reduction), and one linear projector to the LM width. Per sample the local-crop tokens come first, then the global
view's, and they replace the image placeholder tokens of the prompt in order (masked_scatter). LM: layers of two
attention types with their own RoPE (per-type theta and partial rotary factor) and their own masks: sliding-window
layers (with MORE query heads than the full layers, via a per-layer config override) and full-attention layers; all
use GQA, per-head q / k RMSNorm (Gemma-style 1 + w), and a head-wise sigmoid output gate (g_proj) before o_proj.
MLP: leading dense SwiGLU layers, then MoE: sigmoid router with a score-correction bias for top-k choice, weights
renormalised, SwiGLU experts plus an always-on shared expert; selected layers clamp the SwiGLU (gate clamped above,
up clamped both sides) at 7 for the routed experts and 16 for the shared one. Gemma-style (1 + w) RMSNorms, untied
LM head.

Shrunk (from the Step3p7 config class defaults): vision width 1536 -> 32, 47 layers -> 2, 16 heads -> 2 (head dim
16), MLP 8960 -> 128, image 728 -> 112 (grid 52 -> 8) with local crops 84 x 84 (grid 6, interpolated positions);
LM hidden 4096 -> 64, 45 layers -> 4, heads 64 -> 4 (2 kv, head dim 16), 288 experts of 1280 (top-8) -> 16 of 32
(top-4), shared expert 1280 -> 32, dense intermediate 11264 -> 128, vocab 128815 -> 1000 (image token 151679 -> 999,
pad 1 -> 0). The layer pattern (3 sliding of window 16 with 6 heads, then 1 full with partial rotary 0.5 and theta
5e6), the dense-then-MoE split (1 dense layer here) and the clamps on the last layer are set here so every path of the
class runs (the checkpoint carries them in legacy hub-config fields; its first 3 layers are dense and its last two
are clamped at 7 / 16).
Inputs: input_ids (2, 48) with 12 image tokens in sample 0 (2 local crops + global view) and 4 in sample 1 (global
only); pixel_values (2, 3, 112, 112) global views; pixel_values_local (2, 3, 84, 84) crops, num_local_patches (2, 0).
Output: LM logits (2, 48, 1000).
"""
import torch
from torch import nn
from transformers import Step3p7Config, Step3p7ForConditionalGeneration

batch_size = 2
seq_len = 48
vocab_size = 1000
image_token_id = 999
image_size = 112
local_size = 84
num_local_patches = [2, 0]
tokens_per_view = 4  # (grid 8 or 6) -> two stride-2 convs -> 2 x 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Step3p7ForConditionalGeneration(config)

    def forward(self, input_ids, pixel_values, pixel_values_local):
        return self.model(input_ids=input_ids, pixel_values=pixel_values, pixel_values_local=pixel_values_local,
                          num_local_patches=num_local_patches, use_cache=False).logits


def get_inputs():
    input_ids = torch.randint(1, image_token_id, (batch_size, seq_len))
    for i, n_local in enumerate(num_local_patches):
        n_tokens = (n_local + 1) * tokens_per_view
        input_ids[i, 4:4 + n_tokens] = image_token_id
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    pixel_values_local = torch.randn(sum(num_local_patches), 3, local_size, local_size)
    return [input_ids, pixel_values, pixel_values_local]


def get_init_inputs():
    # stepfun-ai/Step-3.7-Flash (the Step3p7VisionConfig / Step3p7TextConfig defaults), shrunk where commented.
    vision_config = dict(
        hidden_size=32,  # published 1536
        num_hidden_layers=2,  # published 47
        num_attention_heads=2,  # published 16
        mlp_ratio=4.0,  # published 8960 / 1536
        image_size=image_size,  # published 728
        patch_size=14,
    )
    text_config = dict(
        vocab_size=vocab_size,  # published 128815
        hidden_size=64,  # published 4096
        intermediate_size=128,  # published 11264
        num_hidden_layers=4,  # published 45
        num_attention_heads=4,  # published 64
        num_key_value_heads=2,  # published 8
        head_dim=16,  # published 128
        layer_types=["sliding_attention"] * 3 + ["full_attention"],
        sliding_window=16,
        num_sliding_attention_heads=6,
        rope_theta=[10000.0] * 3 + [5e6],
        partial_rotary_factors=[1.0] * 3 + [0.5],
        mlp_layer_types=["dense"] + ["sparse"] * 3,
        moe_intermediate_size=32,  # published 1280
        n_routed_experts=16,  # published 288
        num_experts_per_tok=4,  # published 8
        share_expert_dim=32,  # published 1280
        swiglu_limits=[None] * 3 + [7.0],
        swiglu_limits_shared=[None] * 3 + [16.0],
        pad_token_id=0,  # published 1
    )
    return [Step3p7Config(vision_config=vision_config, text_config=text_config, image_token_id=image_token_id)]
