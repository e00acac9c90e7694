"""timm `coatnet_0_rw_224` with small kwargs (pretrained=False): CoAtNet (Dai et al. 2021, "CoAtNet: Marrying
Convolution and Attention for All Data Sizes"), timm's "rw" variant: a two-conv stem, two stages of MBConv
blocks (depthwise conv + squeeze-excitation, pre-norm, avg-pool downsampling) and two stages of transformer
blocks with full (global) 2D multi-head attention plus a relative position bias table, MLP, layer norm.

Shrunk (published coatnet_0_rw_224: 224 x 224 images, embed_dim (96, 192, 384, 768), depths (2, 3, 5, 2),
stem_width 64, 27M parameters): 128 x 128 images, embed_dim (32, 64, 128, 256), depths (1, 2, 2, 1),
stem_width (16, 32), 10 classes, ~1.1M parameters; head dim stays 32. The transformer stages attend over
8 x 8 = 64 and 4 x 4 = 16 tokens.
Input: RGB images (batch, 3, 128, 128). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 224 in the published config
num_classes = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model(
            "coatnet_0_rw_224",
            pretrained=False,
            num_classes=num_classes,
            img_size=image_size,
            embed_dim=(32, 64, 128, 256),  # (96, 192, 384, 768)
            depths=(1, 2, 2, 1),  # (2, 3, 5, 2)
            stem_width=(16, 32),  # 64
        )

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
