"""torchvision `mc3_18` (weights=None): MC3-18 (Tran et al. 2018, "A Closer Look at Spatiotemporal Convolutions
for Action Recognition"), the mixed-convolution video ResNet-18: full 3 x 3 x 3 convolutions in the stem
(3 x 7 x 7) and the first residual stage, 2D 1 x 3 x 3 convolutions (no temporal extent) in stages 2-4, 3D
average pooling, a linear classifier. Published builder unchanged, 11.7M parameters.

Shrunk: clips of 8 frames of 64 x 64 instead of torchvision's Kinetics-400 16 x 112 x 112 (the adaptive average
pool makes any clip size work; temporal stride is 1 throughout, so all 8 frames reach the pool).
Input: clips (batch, 3, 8, 64, 64). Output: Kinetics-400 logits (batch, 400).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
num_frames = 8  # 16 in torchvision's Kinetics-400 recipe
image_size = 64  # 112 in torchvision's recipe


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.video.mc3_18(weights=None)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, num_frames, image_size, image_size)]


def get_init_inputs():
    return []
