"""timm `convnextv2_atto` (pretrained=False): ConvNeXt V2-Atto (Woo et al. 2023, "ConvNeXt V2: Co-designing and
Scaling ConvNets with Masked Autoencoders"): ConvNeXt blocks (7 x 7 depthwise conv, LayerNorm, inverted MLP) with
Global Response Normalization (GRN: per-channel L2 norm over the spatial dims, divided by its channel mean, as a
residual gain) in the MLP, the smallest published variant, 3.7M parameters.

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
        self.model = timm.create_model("convnextv2_atto", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
