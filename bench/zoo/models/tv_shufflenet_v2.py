"""torchvision `shufflenet_v2_x1_0` (weights=None): ShuffleNet V2 1.0x (Ma et al. 2018, "ShuffleNet V2: Practical
Guidelines for Efficient CNN Architecture Design"): a 3 x 3 stride-2 Conv-BN-ReLU stem and a 3 x 3 stride-2 max
pool, three stages of 4, 8, 4 units (widths 116, 232, 464), a 1 x 1 Conv-BN-ReLU to 1024 channels, global
average pooling and a linear classifier. Basic unit (stride 1): channel split into two halves, one passed
through unchanged, the other through 1 x 1 Conv-BN-ReLU -> 3 x 3 depthwise Conv-BN -> 1 x 1 Conv-BN-ReLU,
concatenated; downsampling unit (first of each stage, stride 2): no split, both branches see the whole input
(left: 3 x 3 stride-2 depthwise Conv-BN -> 1 x 1 Conv-BN-ReLU; right: as the basic branch with a strided
depthwise conv), concatenated, doubling the channels. Every unit ends with a channel shuffle of 2 groups
(view (B, 2, C/2, H, W) -> transpose -> flatten), so the halves mix between units.
Published builder, 2.3M parameters, at its native 224 x 224 (feature maps 56, 28, 14, 7).

Stand-in for trained weights (Model.__init__): with PyTorch's default conv inits (no custom init in this
builder) and untouched BatchNorm statistics (mean 0, var 1, so each BN is the identity in eval), the signal
shrinks at every conv: the final features come out ~1e-5 and the logits are the classifier bias, the same for
every input. The running statistics of every BatchNorm are set to the batch statistics of one training-mode
pass over a random batch of 8 images (what trained BN layers hold: the statistics of their inputs), so each BN
normalizes and the logits depend on the input.
Input: RGB images (batch, 3, 224, 224). Output: ImageNet logits (batch, 1000).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 224
calibration_batch = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.shufflenet_v2_x1_0(weights=None)
        bns = [m for m in self.model.modules() if isinstance(m, nn.BatchNorm2d)]
        with torch.no_grad():
            # BN statistics: one training-mode pass, cumulative averaging (momentum None) = this batch's stats
            for bn in bns:
                bn.reset_running_stats()
                bn.momentum = None
            self.model.train()
            self.model(torch.randn(calibration_batch, 3, image_size, image_size))
            self.model.eval()
            for bn in bns:
                bn.momentum = 0.1

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
