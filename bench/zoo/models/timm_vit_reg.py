"""timm `vit_small_patch14_reg4_dinov2` with small kwargs (pretrained=False): a ViT with register tokens
(Darcet et al. 2023, "Vision Transformers Need Registers"), the DINOv2 ViT-S/14 with 4 registers: 14 x 14 patch
embedding, a class token and 4 learned register tokens prepended to the patch tokens (the position embedding
covers the patch tokens only, no_embed_class), pre-norm blocks with LayerScale (init 1e-5), class-token pooling.

Shrunk (published: 518 x 518 images, embed_dim 384, depth 12, 6 heads, 22M parameters): 112 x 112 images
(8 x 8 = 64 patches, 69 tokens with the class and register tokens), embed_dim 192, depth 4, 3 heads (head dim
64 as published), a 10-class head, 1.9M parameters.
Input: RGB images (batch, 3, 112, 112). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 112  # 518 in the published config
num_classes = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model(
            "vit_small_patch14_reg4_dinov2",
            pretrained=False,
            num_classes=num_classes,
            img_size=image_size,
            embed_dim=192,  # 384
            depth=4,  # 12
            num_heads=3,  # 6
        )

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
