"""torchvision `fcn_resnet50` (weights=None, weights_backbone=None, aux_loss=False): FCN (Long et al. 2015, "Fully
Convolutional Networks for Semantic Segmentation") in torchvision's form: a ResNet-50 backbone with layer3/layer4
dilated instead of strided (output stride 8), an FCNHead (3 x 3 conv 2048 -> 512, BN, ReLU, dropout, 1 x 1 conv to
the classes), bilinear upsampling of the logits to the input size; no auxiliary head. Published builder,
33M parameters (the ResNet-50 backbone 23.5M + the head's 3 x 3 conv 9.4M; the builder has no width knob, so this
stays slightly above the zoo's 30M guideline).

Shrunk: 128 x 128 images instead of the 520 of torchvision's VOC recipe (the feature map is 16 x 16).
Input: RGB images (batch, 3, 128, 128). Output: the "out" head's per-pixel logits (batch, 21, 128, 128).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 128  # 520 in torchvision's recipe


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.segmentation.fcn_resnet50(
            weights=None, weights_backbone=None, aux_loss=False
        )

    def forward(self, x):
        return self.model(x)["out"]


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
