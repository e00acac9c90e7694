"""timm `edgenext_xx_small` (pretrained=False): EdgeNeXt-XX-Small (Maaz et al. 2022, "EdgeNeXt: Efficiently
Amalgamated CNN-Transformer Architecture for Mobile Vision Applications"): a 4 x 4 stride-4 patchify stem
(conv + LayerNorm2d), then four stages (widths 24, 48, 88, 168; depths 2, 2, 6, 2), stages 2-4 opening with a
LayerNorm2d + 2 x 2 stride-2 conv downsample. Conv encoder blocks: a depthwise conv (kernel 3, 5, 7, 9 in
stages 1-4) -> LayerNorm -> pointwise MLP (ratio 4, GELU), LayerScale'd, residual. The last block of stages
2-4 is an SDTA (split depth-wise transpose attention) encoder: the channels are split into s = 2, 3, 4 groups
(stages 2, 3, 4), processed Res2Net-style (y_1 = DW3x3(x_1), y_i = DW3x3(x_i + y_{i-1}), the last group passed
through) and concatenated; in stage 2 a Fourier positional encoding (sin / cos of the normalized row and column
index, projected by a 1 x 1 conv) is added to the tokens; then a LayerScale'd residual cross-covariance
("transpose") attention over channels: per head (4), the softmax of the head_dim x head_dim product of the
L2-normalized queries and keys times a learned temperature weighs the values, then a LayerNorm -> MLP,
LayerScale'd, residual. Head: global average pool, LayerNorm, linear classifier.
Published config, 1.3M parameters, at its native 256 x 256 (feature maps 64, 32, 16, 8).

Stand-in for trained weights (Model.__init__): timm initializes every LayerScale gamma (gamma of each block's
MLP, gamma_xca of the attention) at ls_init_value = 1e-6, so a freshly built EdgeNeXt's block branches add
~1e-6 of their output and only the stem, the downsample convs and the head reach the logits. The gammas are
drawn from U(0.5, 1), so every block (its depthwise convs, split convs, positional encoding and
cross-covariance attention) contributes to the output.
Input: RGB images (batch, 3, 256, 256). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("edgenext_xx_small", pretrained=False)
        with torch.no_grad():
            for name, param in self.model.named_parameters():
                if name.endswith(("gamma", "gamma_xca")):  # LayerScale, ls_init_value 1e-6
                    nn.init.uniform_(param, 0.5, 1.0)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
