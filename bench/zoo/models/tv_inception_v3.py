"""torchvision `inception_v3` (weights=None, aux_logits=False, init_weights=True, transform_input=True):
Inception v3 (Szegedy et al. 2015, "Rethinking the Inception Architecture for Computer Vision"). The input is
first re-normalized per channel from ImageNet mean / std to the (x - 0.5) / 0.5 range of the original weights
(transform_input: x_c * std_c / 0.5 + (mean_c - 0.5) / 0.5, the three channels rescaled and concatenated back).
Stem: five Conv-BN-ReLU layers (3 x 3 stride 2, 3 x 3, 3 x 3 padded, 1 x 1, 3 x 3) and two 3 x 3 stride-2 max
pools (299 -> 35 x 35); then Inception modules: three A (5b-5d, 35 x 35: 1 x 1, 1 x 1 -> 5 x 5, double 3 x 3
and avg-pool -> 1 x 1 branches), a grid reduction B (6a, to 17 x 17), four C (6b-6e) with factorized 7 x 7
convs (1 x 7 / 7 x 1 chains, 128-192 channels), a grid reduction D (7a, to 8 x 8) and two E (7b, 7c) whose
branches split into parallel 1 x 3 and 3 x 1 convs, concatenated (2048 channels); every conv is
Conv-BN(eps 1e-3)-ReLU. Global average pooling, dropout (off in eval), linear classifier. The auxiliary
classifier is not built (aux_logits=False). Published builder, 23.8M parameters, at its native 299 x 299.
A forward at batch 2 takes ~0.5-1.0 s on one CPU thread (OMP_NUM_THREADS=1).

Stand-in for trained weights (Model.__init__): init_weights draws every conv and the classifier from
N(0, 0.1) truncated, and the untouched BatchNorm statistics (mean 0, var 1) make each BN the identity in eval,
so the signal grows at every conv: the logits come out ~1e11. The running statistics of every BatchNorm are set
to the batch statistics of one training-mode pass over a random batch of 8 images (what trained BN layers hold:
the statistics of their inputs), so each BN normalizes and the logits are of order 1.
Input: RGB images (batch, 3, 299, 299). Output: ImageNet logits (batch, 1000).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 299
calibration_batch = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.inception_v3(
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
