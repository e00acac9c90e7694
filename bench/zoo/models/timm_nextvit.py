"""timm `nextvit_small` with reduced depths (pretrained=False): Next-ViT (Li et al. 2022, "Next-ViT: Next Generation
Vision Transformer for Efficient Deployment in Realistic Industrial Scenarios"), a BatchNorm + ReLU hybrid with no
LayerNorm. Stem: four 3 x 3 conv-BN-ReLU (64, 32, 64, 64 channels; strides 2, 1, 1, 2). Next Convolution Block:
patch embedding (at a stride-2 stage entry a 2 x 2 average pool, then 1 x 1 conv + BN), a residual multi-head
convolutional attention (grouped 3 x 3 conv with one group per 32-channel head, BN, ReLU, 1 x 1 projection), then a
pre-BN residual conv MLP (ratio 3). Next Transformer Block: patch embedding to 3/4 of the output width, a pre-BN
residual efficient multi-head self-attention (E-MHSA, head dim 32: queries from every token, keys and values from
the token sequence average-pooled by sr_ratio^2 (spatial reduction, sr_ratio 8 / 4 / 2 / 1 per stage) and
BatchNorm'd), then a 1 x 1 projection of that to the remaining 1/4 width with a residual convolutional attention,
the two concatenated along channels (mix_block_ratio 0.75), then a pre-BN residual conv MLP (ratio 2). Stages
(stride 1, 2, 2, 2): stage 1 only convolution blocks (96 channels), stage 2 convolution blocks then one
transformer block (192, last 256), stage 3 repeats (4 convolution blocks at 384 + 1 transformer block at 512),
stage 4 convolution blocks then one transformer block (768, last 1024). Final BN, global average pool, linear head.

Shrunk (published nextvit_small: depths (3, 4, 10, 3), 224 x 224 images, 31.8M parameters): depths (2, 2, 5, 2)
(every stage keeps its block pattern: stage 3 keeps one full 4 x conv + transformer group, stages 2 and 4 one
convolution block before their transformer block), 128 x 128 images (the E-MHSA token counts 256 / 64 / 16 at
stages 2 / 3 / 4 stay divisible by sr_ratio^2). Widths, heads, sr_ratios, mlp ratios, mix_block_ratio as
published; drop_path_rate 0.1 as published (inactive in eval); 20.2M parameters.
Input: RGB images (batch, 3, 128, 128). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 128  # 224 in the published config


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model(
            "nextvit_small",
            pretrained=False,
            depths=(2, 2, 5, 2),  # (3, 4, 10, 3)
        )

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
