"""timm `tiny_vit_5m_224` (pretrained=False, num_classes=1000): TinyViT-5M (Wu et al. 2022, "TinyViT: Fast
Pretraining Distillation for Small Vision Transformers"): a 2-conv stride-4 patch embedding, a first stage of
two MBConv blocks (1 x 1 expand x4, 3 x 3 depthwise, 1 x 1 project, Conv-BN pairs with GELU, residual), then
three stages of TinyViT blocks, each entered through a patch-merging conv stack (1 x 1, 3 x 3 depthwise
stride 2, 1 x 1). A TinyViT block: windowed self-attention (pre-LayerNorm, value dim = key dim) with a learned
bias per head and relative offset (|dy|, |dx|) added to the logits, gathered from the bias table through an
index buffer, residual; a 3 x 3 depthwise Conv-BN on the token grid (not residual); a pre-LayerNorm GELU MLP
(ratio 4), residual. When the grid is not a multiple of the window, the tokens are zero-padded at the bottom /
right to whole windows, partitioned, attended (padded tokens unmasked, as in timm and the official code) and
the padding is cropped off. Widths (64, 128, 160, 320), depths (2, 2, 6, 2), heads (-, 4, 5, 10), windows
(-, 7, 14, 7). LayerNorm2d + average pool + linear head.

Published config, except num_classes 1000 (timm's default tag for this name is the ImageNet-22k-distilled
checkpoint with a 21841-class head; 1000 as in its .in1k / .dist_in22k_ft_in1k tags), 5.4M parameters.
Shrunk input: 160 x 160 instead of 224 x 224 (the model is resolution-agnostic: the bias tables are sized by
the windows), so the token grids are 40, 20, 10 and 5 instead of 56, 28, 14 and 7: at 224 every grid is a
multiple of its window, at 160 all three attention stages pad (20 -> 21 in 3 x 3 windows of 7, 10 -> 14 in
one window of 14, 5 -> 7 in one window of 7).
Stand-ins for trained weights (Model.__init__): timm initializes the BN weight of each MBConv's last Conv-BN
with 0 and all attention bias tables with 0, so a freshly built TinyViT's MBConv branches add nothing and
the bias gather never reaches the output; the zeroed BN weights are drawn from U(0.5, 1) and the bias tables
from N(0, 1).
Input: RGB images (batch, 3, 160, 160). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 160  # 224 in the published config
num_classes = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("tiny_vit_5m_224", pretrained=False, num_classes=num_classes)
        with torch.no_grad():
            for module in self.model.modules():
                if isinstance(module, nn.BatchNorm2d) and bool((module.weight == 0).all()):  # MBConv conv3.bn
                    nn.init.uniform_(module.weight, 0.5, 1.0)
            for name, param in self.model.named_parameters():
                if name.endswith("attention_biases"):
                    nn.init.normal_(param, std=1.0)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
