"""timm `ese_vovnet19b_dw` (pretrained=False): VoVNetV2-19 with depthwise-separable convs, whose stages are One-Shot
Aggregation blocks (a chain of 3 x 3 convs whose outputs are all concatenated once and fused by a 1 x 1 conv) with
an identity residual and effective Squeeze-Excitation (one-FC channel attention, hard sigmoid).

Published timm config unchanged. Stand-ins for trained weights (Model.__init__): with timm's fan-out Kaiming init
and untouched BN statistics (identity in eval) the activations shrink stage by stage (logits of std ~1e-4), so the
running statistics of every BatchNorm are set to the batch statistics of one training-mode pass over 8 random
images. Input: 224 x 224 RGB images. Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224
calibration_batch = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("ese_vovnet19b_dw", pretrained=False)
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
