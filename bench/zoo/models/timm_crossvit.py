"""timm `crossvit_tiny_240` (pretrained=False): CrossViT-Ti (Chen et al. 2021, "CrossViT: Cross-Attention
Multi-Scale Vision Transformer for Image Classification"; timm's port of IBM/CrossViT `crossvit_tiny_224`, renamed
after its real input size, weights `crossvit_tiny_240.in1k`): a dual-branch ViT over two patch sizes of the same
image. Small branch: the 240 x 240 image, 12 x 12 patches (20 x 20 = 400 tokens), dim 96; large branch: the image
resized (bicubic F.interpolate inside the forward) to 224 x 224, 16 x 16 patches (14 x 14 = 196 tokens), dim 192;
each branch has its own class token and learned position embedding, 3 heads, MLP ratio 4, qkv bias. Then 3
multi-scale blocks, each: 1 pre-LN ViT block on the small branch and 4 on the large one, then the fusion by
cross-attention between class tokens: each branch's class token is projected (LayerNorm, GELU, Linear) to the
other branch's width, concatenated with the other branch's patch tokens, and a CrossAttentionBlock lets only that
class token query (keys / values from it and the other branch's patches; pre-LN residual, no MLP); the result is
projected back (LayerNorm, GELU, Linear) and replaces the branch's class token. Final LayerNorm per branch, a
linear head on each branch's class token, and the two branches' logits averaged.

Published config (7.0M parameters, trunc-normal(0.02) Linear / position / class-token inits), published image size
240 x 240 (the model is fixed-size: the patch embeddings assert their input size); nothing shrunk.
Input: RGB images (batch, 3, 240, 240). Output: ImageNet logits (batch, 1000).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 240


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model("crossvit_tiny_240", pretrained=False)

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
