"""timm `starnet_s1` (pretrained=False): StarNet-S1 (Ma, Dai, Bai, Wang & Fu, CVPR 2024, "Rewrite the Stars"), a
deliberately minimal 4-stage convolutional network built around the "star operation": element-wise multiplication of
two linear branches, which the paper shows maps the input into an implicit very-high-dimensional non-linear feature
space (like a polynomial kernel) without widening the network. Conv-BN-ReLU6 stride-2 stem (32 channels); each stage
a stride-2 3 x 3 Conv-BN downsampler followed by Star blocks:
    x -> depthwise 7 x 7 Conv-BN -> two parallel 1 x 1 convs f1, f2 (to 4 x width) -> ReLU6(f1(x)) * f2(x)
      -> 1 x 1 Conv-BN g back to width -> depthwise 7 x 7 conv (no BN) -> + residual
(no attention, no layer scale, no SE); BatchNorm over the final features, global average pool, Linear head.
Published config unchanged: base width 24 (stages 24 / 48 / 96 / 192), depths (2, 2, 8, 3), mlp_ratio 4, 2.9M
parameters, at its native 224 x 224 (grids 56 -> 28 -> 14 -> 7).

Stand-ins for trained statistics (as in timm_efficientvit_msra): timm initialises the convs N(0, 0.02^2) and every
BatchNorm with identity running statistics, so the fresh network's activations shrink layer after layer. The running
statistics of every BatchNorm are set to the batch statistics of one training-mode pass over a random batch of 16
images, so each BN roughly normalises.
Input: RGB images (2, 3, 224, 224). Output: ImageNet logits (2, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224
calibration_batch = 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("starnet_s1", pretrained=False)
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
