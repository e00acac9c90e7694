"""timm `dm_nfnet_f0` with small kwargs (pretrained=False): NFNet-F0 (Brock et al. 2021, "High-Performance
Large-Scale Image Recognition Without Normalization"), the DeepMind-faithful variant: no normalization layers
at all. Every conv is a scaled weight-standardized conv (weights standardized per output channel on the fly,
times a learned gain), with TF "SAME" padding; activations are GELU times the NF gamma constant (gamma in the
activation, as in the official JAX code); a 4-conv "deep quad" stem; bottleneck blocks with grouped 3 x 3 convs
(group width fixed, so the number of groups grows with width), the extra 3 x 3 conv of the F-series, squeeze-
excitation scaled by 2; pre-activation residuals out = shortcut + alpha * skipinit_gain * branch(beta * act(x)),
with beta = 1 / expected std and alpha = 0.2 tracking the variance through each stage, average-pool + conv
shortcuts at each stage's first block; a final 1x1 conv to 2x the last width.

Shrunk (published dm_nfnet_f0: 192 x 192 training / 256 x 256 test images, depths (1, 2, 6, 3), channels
(256, 512, 1536, 1536), stem width 128, group size 128, 3072 features, 71.5M parameters): 96 x 96 images,
depths (1, 2, 2, 2), channels (64, 128, 384, 384), stem width 32, group size 32 (the bottleneck widths 32, 64,
192, 192 keep the published 1, 2, 6, 6 groups per grouped conv), 768 features, 10 classes, 2.3M parameters.
Feature maps are 24, 12, 6 and 3 pixels wide (the stride-2 SAME convs pad asymmetrically on the even sizes).
The skipinit gains are initialized at 0 (so a freshly built NFNet's residual branches contribute nothing);
they are re-initialized at random in (0.5, 1) in Model.__init__, as a stand-in for trained values.
Input: RGB images (batch, 3, 96, 96). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 96  # 192 (train) / 256 (test) in the published config
num_classes = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model(
            "dm_nfnet_f0",
            pretrained=False,
            num_classes=num_classes,
            # overlaid onto the model's NfCfg
            depths=(1, 2, 2, 2),  # (1, 2, 6, 3)
            channels=(64, 128, 384, 384),  # (256, 512, 1536, 1536)
            stem_chs=32,  # 128
            group_size=32,  # 128
            num_features=768,  # 3072 (2 x the last width)
        )
        # skipinit (published, skipinit=True) starts every residual branch's gain at 0; give the gains
        # trained-like nonzero values so the branches reach the output.
        for name, param in self.model.named_parameters():
            if name.endswith("skipinit_gain"):
                nn.init.uniform_(param, 0.5, 1.0)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
