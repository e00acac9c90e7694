"""ViT-MAE pretraining model (masked autoencoder: 75% of the patches are dropped by a per-sample argsort of a
noise tensor, the encoder sees only the kept 25% plus CLS, a lighter decoder re-inserts mask tokens, unshuffles
them with ids_restore and reconstructs every patch; the loss is the pixel MSE on masked patches only),
after `facebook/vit-mae-base`, shrunk.

Shrunk: hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head_dim 32), intermediate 3072 -> 512,
decoder hidden 512 -> 128, decoder 8 layers -> 2, decoder 16 heads -> 4, decoder intermediate 2048 -> 512,
image 224 -> 128 (8x8 = 64 patches of 16 px, 16 kept).
Inputs: pixel_values (2, 3, 128, 128) and noise (2, 64), uniform in [0, 1): passing it makes the random
masking deterministic (the library's own hook for reproducible masking).
Output: (loss scalar, reconstructed patch logits (2, 64, 768), binary mask (2, 64) with 1 = masked).
"""
import torch
from torch import nn
from transformers import ViTMAEConfig, ViTMAEForPreTraining

batch_size = 2
image_size = 128
patch_size = 16
num_patches = (image_size // patch_size) ** 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ViTMAEForPreTraining(config)

    def forward(self, pixel_values, noise):
        out = self.model(pixel_values=pixel_values, noise=noise)
        return out.loss, out.logits, out.mask


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    noise = torch.rand(batch_size, num_patches)
    return [pixel_values, noise]


def get_init_inputs():
    # facebook/vit-mae-base config.json. Kept: mask_ratio 0.75, patch 16, layer_norm_eps 1e-12,
    # qkv_bias, norm_pix_loss False, fixed 2D sin-cos position embeddings.
    return [ViTMAEConfig(
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        decoder_hidden_size=128,  # published 512
        decoder_num_hidden_layers=2,  # published 8
        decoder_num_attention_heads=4,  # published 16
        decoder_intermediate_size=512,  # published 2048
        image_size=image_size,  # published 224
        patch_size=patch_size,
        mask_ratio=0.75,
    )]
