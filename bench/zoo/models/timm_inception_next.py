"""timm `inception_next_atto` (pretrained=False): InceptionNeXt-Atto (Yu et al. 2023, "InceptionNeXt: When
Inception Meets ConvNeXt"): a ConvNeXt-style MetaNeXt network whose token mixer splits the channels into four
branches: identity, a 3 x 3 depthwise conv, and 1 x 9 and 9 x 1 band depthwise convs (branch ratio 1/4),
followed by BN and a conv MLP, layer scale; an MLP classifier head.

Published widths and depths unchanged (Atto is the smallest: dims (40, 80, 160, 320), depths (2, 2, 6, 2));
shrunk: 128 x 128 images instead of 224 x 224 and 10 classes instead of 1000 (3.2M parameters instead of 4.2M).
Input: RGB images (batch, 3, 128, 128). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 224 in the pretrained config
num_classes = 10  # 1000 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("inception_next_atto", pretrained=False, num_classes=num_classes)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
