"""timm `res2net50_26w_4s` (pretrained=False): Res2Net-50 26w x 4s (Gao et al. 2019, "Res2Net: A New Multi-scale
Backbone Architecture"): a ResNet-50 (7 x 7 stride-2 stem conv, max pool, stages of 3, 4, 6, 3 bottlenecks,
projection shortcuts) whose bottleneck 3 x 3 conv is replaced by a hierarchical split: the 1 x 1 conv's output
(4 x 26 w channels, w = planes / 64) is split into s = 4 groups x_1..x_4; y_1 = K_1(x_1),
y_i = K_i(x_i + y_{i-1}) for i = 2, 3 (each K a 3 x 3 Conv-BN-ReLU, so the receptive field grows from group to
group), and x_4 passes through unchanged (in the first block of a stage, which strides, every K_i takes its own
x_i and x_4 goes through a 3 x 3 average pool instead); the groups are concatenated and a 1 x 1 Conv-BN expands
back, plus the shortcut, ReLU. Global average pooling and a linear classifier.
Published config, 25.7M parameters; input 128 x 128 instead of 224 x 224 (feature maps 32, 16, 8, 4).

Stand-ins for trained weights (Model.__init__): timm zero-initializes the last BN of every bottleneck
(zero_init_last), so a freshly built Res2Net's residual branches add exactly nothing and only the stride /
projection shortcuts carry the image; and once those BNs are nonzero, Kaiming conv inits and untouched BN
statistics (identity in eval) make the features grow block by block (final feature maps of std ~30, logits of
std ~20). The zeroed BN weights are drawn from U(0.5, 1) and the running statistics of every BatchNorm are
set to the batch statistics of one training-mode pass over a random batch of 16 images (what trained BN layers
hold: the statistics of their inputs), so each BN normalizes and the logits are of order 1.
Input: RGB images (batch, 3, 128, 128). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 224 in the published config
calibration_batch = 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("res2net50_26w_4s", pretrained=False)
        bns = [m for m in self.model.modules() if isinstance(m, nn.BatchNorm2d)]
        with torch.no_grad():
            for bn in bns:
                if bool((bn.weight == 0).all()):  # last BN of each bottleneck, zero-initialized by timm
                    nn.init.uniform_(bn.weight, 0.5, 1.0)
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
