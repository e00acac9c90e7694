"""timm `xcit_nano_12_p8_224` with small kwargs (pretrained=False): XCiT (El-Nouby et al. 2021, "XCiT:
Cross-Covariance Image Transformers"): a convolutional patch embedding (three stride-2 3 x 3 conv + BatchNorm
layers with GELU for 8 x 8 patches), a Fourier-feature positional encoding (sin/cos of the normalized row and
column index, projected by a 1x1 conv), then XCA blocks, each with three LayerScale'd pre-norm residuals:
cross-covariance attention (attention over channels, not tokens: the softmax of the d_h x d_h product of the
L2-normalized keys and queries, times a learned per-head temperature), local patch interaction (two depthwise
3 x 3 convs with GELU and BatchNorm between them, over the token grid) and an MLP; then a class token is
prepended and two CaiT-style class-attention blocks (only the class token queries; only it goes through the MLP)
precede the final LayerNorm and a linear head on the class token.

Shrunk (published xcit_nano_12_p8_224: 224 x 224 images, so 28 x 28 = 784 patch tokens, embed_dim 128, 12 XCA
blocks, 4 heads, 2 class-attention blocks, 3.0M parameters): 64 x 64 images (8 x 8 = 64 patch tokens), 4 XCA
blocks; width, heads (head dim 32, so 32 x 32 cross-covariance maps), MLP ratio 4, eta 1.0 (LayerScale init),
tokens_norm False and the 2 class-attention blocks as published; 10 classes, 1.3M parameters.
Input: RGB images (batch, 3, 64, 64). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 64  # 224 in the published config
num_classes = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model(
            "xcit_nano_12_p8_224",
            pretrained=False,
            num_classes=num_classes,
            img_size=image_size,
            depth=4,  # 12
        )

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
