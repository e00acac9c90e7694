"""timm `repvit_m0_9` (pretrained=False): RepViT-M0.9 (Wang et al. 2024, "RepViT: Revisiting Mobile CNN From ViT
Perspective"): MobileNetV3-style blocks restructured like a ViT (separate token mixer: re-parameterisable 3 x 3 +
1 x 1 depthwise conv branches with identity, squeeze-excitation; channel mixer: 1 x 1 conv FFN), BatchNorm
everywhere, classifier + distillation heads averaged in eval, 5.5M parameters.

As built (training-time structure): the multi-branch convs and the Conv-BN pairs are not fused (no
reparameterisation is called), as a user gets it from create_model.
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
        self.model = timm.create_model("repvit_m0_9", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
