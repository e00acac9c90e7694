"""timm `gcvit_xxtiny` (pretrained=False): GC ViT-XXTiny (Hatamizadeh et al. 2023, "Global Context Vision
Transformers"): window attention alternating between local self-attention and global-context attention, whose
queries come from a global query generator (fused MBConv + max-pool down to the window size) shared by all
windows of a stage while keys/values stay local; relative position bias; 12M parameters.

Not shrunk: the global query generator is sized for the builder's img_size (224), so the input must be 224 x 224
(other sizes fail unless the model is rebuilt with img_size).
Input: 224 x 224 RGB images. Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("gcvit_xxtiny", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
