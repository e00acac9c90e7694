"""SigLIP2 NaFlex vision tower (native-aspect-ratio, variable-resolution ViT: images arrive as padded sequences of
flattened 16x16 patches with their own (h, w) patch grids; the learned 16x16 position-embedding grid is
bilinearly resized per image to its grid, padded patches are masked out of attention and out of the
multi-head attention-pooling head), after `google/siglip2-base-patch16-naflex`, shrunk.

Shrunk: hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head_dim 32), intermediate 3072 -> 512,
num_patches 256 -> 64 (position grid 16x16 -> 8x8), max_num_patches 256 -> 64.
Inputs: pixel_values (2, 64, 768) (patches flattened to 3*16*16), pixel_attention_mask (2, 64) (sample 0 is an
8x8 grid using all 64 patches; sample 1 a 6x10 grid, 60 real patches then 4 padding patches set to 0) and
spatial_shapes (2, 2) = [[8, 8], [6, 10]].
Output: (last_hidden_state (2, 64, 128), pooler_output (2, 128)).
"""
import torch
from torch import nn
from transformers import Siglip2VisionConfig, Siglip2VisionModel

batch_size = 2
patch_size = 16
max_num_patches = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Siglip2VisionModel(config)

    def forward(self, pixel_values, pixel_attention_mask, spatial_shapes):
        out = self.model(
            pixel_values=pixel_values,
            pixel_attention_mask=pixel_attention_mask,
            spatial_shapes=spatial_shapes,
        )
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    spatial_shapes = torch.tensor([[8, 8], [6, 10]], dtype=torch.long)
    pixel_values = torch.randn(batch_size, max_num_patches, 3 * patch_size * patch_size)
    pixel_attention_mask = torch.zeros(batch_size, max_num_patches, dtype=torch.long)
    for i, (h, w) in enumerate(spatial_shapes.tolist()):
        pixel_attention_mask[i, : h * w] = 1
    pixel_values = pixel_values * pixel_attention_mask[..., None]  # padding patches are zeros
    return [pixel_values, pixel_attention_mask, spatial_shapes]


def get_init_inputs():
    # google/siglip2-base-patch16-naflex vision_config. Kept: patch 16, gelu_pytorch_tanh,
    # layer_norm_eps 1e-6, vision_use_head True (attention-pooling head).
    return [Siglip2VisionConfig(
        hidden_size=128,  # published 768
        intermediate_size=512,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        num_patches=max_num_patches,  # published 256
        patch_size=patch_size,
    )]
