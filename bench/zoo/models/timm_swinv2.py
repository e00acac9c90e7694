"""timm `swinv2_tiny_window8_256` with tiny custom kwargs (pretrained=False): Swin Transformer V2 (Liu et al. 2022,
"Swin Transformer V2: Scaling Up Capacity and Resolution"): 4 x 4 patch embedding, shifted-window attention with
scaled cosine attention (learned per-head logit scale), a log-spaced continuous relative position bias (a small
MLP over log coordinates, 16 * sigmoid), residual post-norm, patch merging between stages.

Shrunk (the published Swin-T V2: 256 x 256 images, window 8, embed_dim 96, depths (2, 2, 6, 2), heads
(3, 6, 12, 24), 28M parameters): 128 x 128 images, window 4, embed_dim 32, depths (2, 2, 2, 2), heads
(1, 2, 4, 8) (head dim 32 as published), 10 classes, 2.3M parameters. Feature maps are 32, 16, 8 and 4
tokens wide: the odd block of each of the first three stages uses the shifted window (with its attention mask);
the last stage's 4 x 4 map is one window, so it is not shifted.
Input: RGB images (batch, 3, 128, 128). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 256 in the published config
num_classes = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model(
            "swinv2_tiny_window8_256",
            pretrained=False,
            num_classes=num_classes,
            img_size=image_size,
            window_size=4,  # 8
            embed_dim=32,  # 96
            depths=(2, 2, 2, 2),  # (2, 2, 6, 2)
            num_heads=(1, 2, 4, 8),  # (3, 6, 12, 24)
        )

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
