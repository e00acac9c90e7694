"""timm `csatv2` (pretrained=False; the `csatv2.r512_in1k` model): CSATv2, a frequency-domain image classifier
that reads images the way JPEG stores them. The DCT stem undoes the ImageNet normalisation back to 0-255,
converts RGB to YCbCr, cuts the image into non-overlapping 8 x 8 blocks (reshape-permute), applies an orthonormal
2D DCT-II to each block as two Linear products with a fixed DCT matrix (rows, then columns, with transposes),
reorders the 64 coefficients in JPEG zigzag order (an index gather), normalises them by fixed per-channel,
per-frequency means and variances, and projects each of Y, Cb and Cr with its own 1 x 1 conv (channel split 6:1:1)
before concatenating: a stride-8 stem with no spatial convolution. Four stages follow (2 x 2 stride-2 conv
downsampling between them, a channels-first LayerNorm closing the first three): ConvNeXt-V2 style blocks (7 x 7
depthwise conv, LayerNorm, Linear x4, GELU, Global Response Normalisation, Linear) whose output is multiplied by a
spatial attention map: channel mean and max are stacked, average-pooled to a fixed 7 x 7 grid, convolved 7 x 7 to
one channel, passed through a tiny single-head transformer with scalar q / k / v over the 49 positions (depthwise
conv position encoding, a 1 -> 4 -> 1 MLP), and bilinearly upsampled (align_corners) back to the feature map. The
last two stages end with transformer blocks (conv position encoding, 8-head attention with head dim 32, GELU MLP).
Global average pooling, LayerNorm, and the linear classifier (NormMlpClassifierHead).

Not shrunk (11.1M parameters): the published layout at its published 512 x 512 input (stage maps 64, 32, 16, 8,
so the 7 x 7 spatial-attention pool always reduces).
Kept: dims (32, 72, 168, 386), depths (2, 2, 8, 6) with transformer depths (0, 0, 2, 2), DCT block 8, the DCT
statistics tables, 1000 classes. The Global Response Norm weight and bias (zeros in the class, which would make
GRN an identity; trained in the checkpoint) get fixed values: weight in [0, 0.5], bias in [-0.05, 0.05].
Input: ImageNet-normalised RGB images (2, 3, 512, 512). Output: logits (2, 1000).
"""
import timm
import torch
from torch import nn
from timm.layers.grn import GlobalResponseNorm

batch_size = 2
image_size = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("csatv2", pretrained=False)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for m in self.model.modules():
                if isinstance(m, GlobalResponseNorm):
                    m.weight.copy_(torch.rand(m.weight.shape, generator=gen) * 0.5)
                    m.bias.copy_((torch.rand(m.bias.shape, generator=gen) - 0.5) * 0.1)

    def forward(self, images):
        return self.model(images)


def get_inputs():
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return [(torch.rand(batch_size, 3, image_size, image_size) - mean) / std]


def get_init_inputs():
    return []
