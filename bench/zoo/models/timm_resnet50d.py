"""timm `resnet50d` (pretrained=False): ResNet-50-D (deep 3-conv stem, average-pool downsampling shortcuts).

Input: 224 x 224 RGB images (the model's pretrained_cfg input size). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 1
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("resnet50d", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
