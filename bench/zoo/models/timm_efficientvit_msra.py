"""timm `efficientvit_m0` (pretrained=False): EfficientViT-M0 (Liu, Peng, Zheng, Yang, Hu & Yuan 2023, "EfficientViT:
Memory Efficient Vision Transformer with Cascaded Group Attention", Microsoft; not the MIT EfficientViT of
timm_efficientvit_mit). A stride-16 Conv-BN-ReLU stem, then three stages of "sandwich" blocks: depthwise 3 x 3
Conv-BN residual, Conv-BN-ReLU-Conv-BN FFN residual, ONE token-mixing attention residual, depthwise residual, FFN
residual (many FFNs, few attentions). The mixer is Cascaded Group Attention inside 7 x 7 local windows (padded
and partitioned): the channels are split into one chunk per head, and head h attends over its chunk PLUS the
output of head h - 1 (a cascade, so later heads refine earlier ones); each head has its own 1 x 1 Conv-BN q / k / v
projection (keys / queries 16-dim, values 4 x 16), a depthwise 5 x 5 Conv-BN on the query, and a learned per-head
bias per |dy|, |dx| offset gathered from a table by an index buffer; ReLU before the Conv-BN output projection.
Between stages a PatchMerging (1 x 1 expand, depthwise 3 x 3 stride 2, squeeze-excite, 1 x 1 project) wrapped in
depthwise + FFN residuals. All projections are Conv-BN pairs (BN foldable at inference). Global average pool,
BN-Linear classifier. Published config unchanged: widths (64, 128, 192), depths (1, 2, 3), 4 heads, windows 7, 2.3M
parameters, at its native 224 x 224 (grids 14 -> 7 -> 4).

Stand-ins for trained weights (Model.__init__, as in timm_levit): timm initializes the BN of the last Conv-BN of every
residual branch (depthwise convs, FFNs, the attention output projection) with weight 0, and the relative-position
bias tables with 0, so a freshly built model's residual branches add exactly nothing. The zeroed BN weights are
drawn from U(0.5, 1), the bias tables from N(0, 1), and the running statistics of every BatchNorm of the stem and
stages are set to the batch statistics of one training-mode pass over a random batch of 16 images, so each BN
roughly normalizes. The classifier's BN (over pooled features) keeps its fresh identity statistics.
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
        self.model = timm.create_model("efficientvit_m0", pretrained=False)
        # BNs of the stem and stages; the head's BN (over pooled features) keeps its fresh statistics
        bns = [m for m in self.model.patch_embed.modules() if isinstance(m, nn.BatchNorm2d)]
        bns += [m for m in self.model.stages.modules() if isinstance(m, nn.BatchNorm2d)]
        with torch.no_grad():
            for bn in bns:
                if bool((bn.weight == 0).all()):  # residual-branch BNs, zero-initialized by timm
                    nn.init.uniform_(bn.weight, 0.5, 1.0)
            for name, param in self.model.named_parameters():
                if name.endswith("attention_biases"):
                    nn.init.normal_(param, std=1.0)
            # BN statistics: one training-mode pass, cumulative averaging (momentum None) = this batch's stats
            for bn in bns:
                bn.reset_running_stats()
                bn.momentum = None
            self.model.train()
            self.model(torch.randn(calibration_batch, 3, image_size, image_size))
            self.model.eval()
            for bn in bns:
                bn.momentum = 0.1
            for module in self.model.modules():  # drop bias tables gathered before the re-init
                if hasattr(module, "attention_bias_cache"):
                    module.attention_bias_cache = {}

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
