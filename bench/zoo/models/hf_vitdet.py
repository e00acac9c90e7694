"""ViTDet backbone (plain ViT for detection: non-overlapping windowed attention in most blocks, a few global
blocks, decomposed relative position biases, absolute position embeddings interpolated from the pretraining
grid), after the ViTDet ViT-B backbone (detectron2 `mask_rcnn_vitdet_b`; HF `google/vitdet-base-patch16-224`), shrunk.

Shrunk: hidden 768 -> 128, 12 layers -> 2 (layer 0 windowed, layer 1 global, as in the published
window/global interleave), 12 heads -> 4 (head_dim 32), image 1024 -> 112 (7x7 patch grid),
pretrain_image_size 224 -> 64 (4x4 grid of absolute position embeddings, interpolated to 7x7),
window_size 14 -> 4 (the 7x7 grid is padded to 8x8 before window partition, as 64x64 is padded to 70x70).
Inputs: pixel_values (2, 3, 112, 112).
Output: the final feature map (2, 128, 7, 7).
"""
import torch
from torch import nn
from transformers import VitDetConfig, VitDetModel

batch_size = 2
image_size = 112


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VitDetModel(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).last_hidden_state


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    return [pixel_values]


def get_init_inputs():
    # ViTDet ViT-B (detectron2 ViT(img_size=1024, window_size=14, use_rel_pos=True,
    # window_block_indexes=[0, 1, 3, 4, 6, 7, 9, 10])). Kept: patch 16, mlp_ratio 4, qkv_bias,
    # layer_norm_eps 1e-6, absolute + relative position embeddings, no residual conv blocks.
    return [VitDetConfig(
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12 (head_dim 64 -> 32)
        image_size=image_size,  # published 1024
        pretrain_image_size=64,  # published 224
        patch_size=16,
        drop_path_rate=0.1,  # published 0.1 (identity in eval)
        window_block_indices=[0],  # published [0, 1, 3, 4, 6, 7, 9, 10]: windowed, the rest global
        window_size=4,  # published 14
        use_relative_position_embeddings=True,  # published True
        use_absolute_position_embeddings=True,
    )]
