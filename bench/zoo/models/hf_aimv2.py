"""AIMv2 vision encoder (Apple, Fini et al. 2024, "Multimodal Autoregressive Pre-training of Large Vision
Encoders"), after `apple/aimv2-large-patch14-224`, shrunk.

Aimv2VisionModel: a ViT without [CLS] token and without biases, in the Llama style: conv patch embedding followed by
an RMSNorm, learned absolute position embeddings, pre-RMSNorm blocks of bias-free multi-head self-attention and a
SwiGLU MLP (silu(gate) * up -> down), and a final RMSNorm over the patch tokens. The published checkpoint is the
encoder as pretrained (with a causal multimodal decoder that is not part of it): no attention-pooling head
(use_head False).
Published: 224 x 224 images / patch 14 (16 x 16 = 256 patches), hidden 1024, 24 layers, 8 heads (head_dim 128),
intermediate 2816.
Shrunk: images 224 -> 112 px (8 x 8 = 64 patches), hidden 1024 -> 256, 24 layers -> 4, 8 heads kept (head_dim 128 ->
32), intermediate 2816 -> 704 (ratio 2.75 kept). Kept: patch 14, silu, rms_norm_eps 1e-5, no qkv / MLP bias,
non-native (learned) position embeddings, no head.
Input: pixel_values (2, 3, 112, 112). Output: last_hidden_state (2, 64, 256).
"""
import torch
from torch import nn
from transformers import Aimv2VisionConfig, Aimv2VisionModel

batch_size = 2
image_size = 112  # published 224


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Aimv2VisionModel(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).last_hidden_state


def get_inputs():
    # normalized RGB images (CLIP mean / std, as the AIMv2 image processor does)
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # apple/aimv2-large-patch14-224 config.json.
    return [Aimv2VisionConfig(
        hidden_size=256,  # published 1024
        intermediate_size=704,  # published 2816
        num_hidden_layers=4,  # published 24
        num_attention_heads=8,
        num_channels=3,
        image_size=image_size,  # published 224
        patch_size=14,
        hidden_act="silu",
        rms_norm_eps=1e-5,
        qkv_bias=False,
        mlp_bias=False,
        use_head=False,
        is_native=False,
    )]
