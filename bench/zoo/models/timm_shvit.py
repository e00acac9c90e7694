"""timm `shvit_s1` (pretrained=False): SHViT (Yun & Ro, CVPR 2024, "SHViT: Single-Head Vision Transformer with
Memory Efficient Macro Design"), a fast hybrid backbone built from conv + BatchNorm units (Conv2dNorm, BN-folded at
deployment) whose attention is a single head on part of the channels. A 16 x 16 patchify stem of four stride-2
3 x 3 conv-BN layers with ReLU, then three stages at strides 16, 32 and 64. Each block is three residual steps: a
3 x 3 depthwise conv-BN, the token mixer, and a 1 x 1 conv-BN FFN (x2, ReLU). The mixer of the 's' blocks is
single-head self-attention (SHSA): the channels are split (torch.split) into a partial slice of pdim channels and
the rest; only the slice is GroupNorm'ed (one group) and projected by one 1 x 1 conv-BN into q and k of qk_dim 16
and v of pdim channels; attention over all spatial positions with one head (scale 16^-0.5, softmax, v @ attn^T);
the attended slice is concatenated back with the untouched channels and projected (ReLU, 1 x 1 conv-BN). The first
stage uses no attention ('i' blocks). Between stages a downsample sequence: depthwise and FFN residuals, an
inverted-residual patch merging (1 x 1 expand x4, stride-2 depthwise, Squeeze-Excite, 1 x 1 project), and again
depthwise and FFN residuals. Global average pooling and a BatchNorm1d + Linear head.

Not shrunk (6.3M parameters): the published shvit_s1 at its 224 x 224 input (stage maps 14, 7, 4).
Kept: embed dims (128, 224, 320), depths (2, 4, 5), partial dims (32, 48, 68), qk_dim 16, types (i, s, s), ReLU,
1000 classes. The class initialises the BN weights that close each residual branch (depthwise conv, FFN output,
attention projection) to zero, which would make every branch an exact zero until trained: those BN weights get
fixed values in [0.1, 0.5] here so the branches contribute.
Input: ImageNet-normalised RGB images (2, 3, 224, 224). Output: logits (2, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("shvit_s1", pretrained=False)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for m in self.model.modules():
                if isinstance(m, nn.BatchNorm2d) and not m.weight.any():
                    m.weight.copy_(0.1 + 0.4 * torch.rand(m.weight.shape, generator=gen))

    def forward(self, images):
        return self.model(images)


def get_inputs():
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return [(torch.rand(batch_size, 3, image_size, image_size) - mean) / std]


def get_init_inputs():
    return []
