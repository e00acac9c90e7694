"""timm `levit_128s` (pretrained=False): LeViT-128S (Graham et al. 2021, "LeViT: a Vision Transformer in ConvNet's
Clothing for Faster Inference"): a 4-conv stride-16 stem (3 x 3 stride-2 Conv-BN pairs with Hardswish), then
three stages of residual attention + MLP blocks on flattened token grids (14 x 14, 7 x 7, 4 x 4) with no
LayerNorm anywhere: every projection is a Linear-BatchNorm1d pair ("BN-linear", BN over batch x tokens).
Attention: keys of dim 16, values of 2 x 16 (4 x 16, with width / 16 heads, in the shrinking attention),
Hardswish before the output projection, and a learned bias per head and relative position added to the
attention logits, gathered from a table of |dy| * W + |dx| offsets by an index buffer
(attention_biases[:, attention_bias_idxs]); the "AttentionDownsample" between stages takes its queries from a
stride-2 subsampled grid (14 -> 7 -> 4) and has no residual. MLP ratio 2. Heads (4, 6, 8), widths
(128, 256, 384), depths (2, 3, 4). Mean-pooled tokens feed a classifier and a distillation head (BN-linear
each), averaged at inference. Published config unchanged, 7.8M parameters, at its native 224 x 224 (the bias
tables are sized for the 14 / 7 / 4 grids).

Stand-ins for trained weights (Model.__init__): timm initializes the BN of the last projection of every residual
branch (attention out-projection, MLP down-projection) with weight 0 and all relative-position bias tables
with 0, so a freshly built LeViT's attention and MLP branches add exactly nothing and the bias gather never
reaches the output; and with default Linear / Conv inits and untouched BN statistics (identity in eval) the
signal shrinks ~3x per layer, so fresh logits are ~1e-5 whatever the input. The zeroed BN weights are drawn
from U(0.5, 1), the bias tables from N(0, 1), and the running statistics of every BatchNorm of the stem and
stages are set to the batch statistics of one training-mode pass over a random batch of 32 images (what
trained BN layers hold: the statistics of their inputs; 32, since deep features of noise images vary mostly
between images, and fewer give statistics that over-amplify other batches), so each BN roughly normalizes and
the logits are of order 1. The two heads' BNs (over pooled features, one sample per image) keep their fresh
identity statistics.
Input: RGB images (batch, 3, 224, 224). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 224
calibration_batch = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("levit_128s", pretrained=False)
        # BNs of the stem and stages; the heads' BNs (over pooled features) keep their fresh statistics
        bns = [m for m in self.model.stem.modules() if isinstance(m, nn.BatchNorm2d)]
        bns += [m for m in self.model.stages.modules() if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d))]
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

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
