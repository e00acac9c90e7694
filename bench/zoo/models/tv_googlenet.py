"""torchvision `googlenet` (weights=None, aux_logits=False, init_weights=True, transform_input=True): GoogLeNet /
Inception v1 (Szegedy et al. 2014, "Going Deeper with Convolutions"), torchvision's BatchNorm variant: the
input is first re-normalized per channel from ImageNet mean / std to the (x - 0.5) / 0.5 range of the
original weights (transform_input: x_c * std_c / 0.5 + (mean_c - 0.5) / 0.5, the three channels rescaled and
concatenated back), a 7 x 7 stride-2 conv stem, max pools, nine Inception modules (3a-5b), each four parallel
branches (1 x 1 conv; 1 x 1 -> 3 x 3; 1 x 1 -> 3 x 3, torchvision's stand-in for the paper's 5 x 5;
3 x 3 max pool -> 1 x 1 conv) concatenated along channels; every conv is Conv-BN(eps 1e-3)-ReLU. Global
average pooling, dropout (off in eval) and a linear classifier; the two auxiliary classifiers are not built.
Published builder, 6.6M parameters.

Stand-in for trained weights (Model.__init__): init_weights draws every conv from N(0, 0.01) truncated, and
the untouched BatchNorm statistics (mean 0, var 1) make each BN the identity in eval, so the signal shrinks
~10x per conv: the pooled features come out ~1e-12 and the logits are the classifier bias, identical for
every input. The running statistics of every BatchNorm are set to the batch statistics of one
training-mode pass over a random batch of 8 images (what trained BN layers hold: the statistics of their
inputs), so each BN normalizes and the logits depend on the input.
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
        self.model = torchvision.models.googlenet(
            weights=None, aux_logits=False, init_weights=True, transform_input=True
        )
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
