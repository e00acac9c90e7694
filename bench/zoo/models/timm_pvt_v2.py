"""timm `pvt_v2_b0` (pretrained=False): PVT v2-B0 (Wang et al. 2022, "PVT v2: Improved Baselines with Pyramid
Vision Transformer"): a four-stage pyramid transformer with overlapping patch embeddings (strided convs),
spatial-reduction attention (keys/values computed from a strided-conv-downsampled token map, reduction ratios
8/4/2/1, then LayerNorm) and a convolutional FFN (depthwise 3 x 3 conv between the MLP layers), 3.7M parameters.

Input: 224 x 224 RGB images (the model's pretrained_cfg input size). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("pvt_v2_b0", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
