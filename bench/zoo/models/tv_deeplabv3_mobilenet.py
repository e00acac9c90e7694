"""torchvision `deeplabv3_mobilenet_v3_large` (weights=None, weights_backbone=None): DeepLabV3 (Chen et al. 2017)
semantic segmentation with a dilated MobileNetV3-Large backbone (output stride 16) and the ASPP head (atrous
convolutions + image pooling), no auxiliary head (the builder's default), published builder unchanged,
11M parameters.

Input: RGB images (batch, 3, 224, 224) (the builder accepts any size; 520 in torchvision's VOC recipe).
Output: the "out" head's per-pixel logits upsampled to the input size (batch, 21, 224, 224).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 224  # 520 in torchvision's recipe


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None)

    def forward(self, x):
        return self.model(x)["out"]


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
