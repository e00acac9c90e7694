"""EoMT, the Encoder-only Mask Transformer (Kerssies et al. 2025, "Your ViT is Secretly an Image Segmentation
Model"): a plain DINOv2-style ViT (conv patch embedding, learned position embeddings, a CLS token and register
tokens, pre-norm blocks with LayerScale on both residual branches and a GELU MLP) does the whole segmentation job
with no pixel decoder and no transformer decoder. The first L - num_blocks layers see only the image tokens; then
learned query tokens are prepended and the last num_blocks layers process queries and image tokens jointly. Before
each of those query blocks (and after the last one) a shared head runs on the LayerNorm'd sequence: a linear class
predictor on the queries, a 3-layer MLP on the queries, and an upscaler on the patch grid (num_upscale_blocks x
[2x2 stride-2 transposed conv, GELU, depthwise 3x3 conv, LayerNorm2d], 4x upsampling); the mask logits are the
einsum of the query embeddings with the upscaled pixel features. The intermediate mask logits are bilinearly
resized back to the patch grid and thresholded at 0 to build a masked-attention mask for the next block (each
query still sees all queries, the CLS and the register tokens, but only the patches inside its own predicted mask;
all other tokens attend everywhere). In training the mask is dropped per query with an annealed probability
(attn_mask_probs); the library initializes that buffer to 1, so masked attention is on in every query block here,
with no randomness in eval.

EomtForUniversalSegmentation after `tue-mps/coco_panoptic_eomt_large_640` (ViT-L/16 backbone, COCO panoptic:
133 classes = 80 things + 53 stuff), shrunk.
Shrunk: hidden 1024 -> 128, 24 layers -> 4 (2 image-only + 2 query blocks), num_blocks 4 -> 2, 16 heads -> 2 (head
dim 64 kept), image 640 -> 160 (40 x 40 patch grid -> 10 x 10), 200 queries -> 50. Kept: patch 16, 4 register
tokens, 2 upscale blocks, mlp_ratio 4, LayerScale 1.0, 133 labels (+1 no-object class).
Input: pixel_values (2, 3, 160, 160) (normalized images, as EomtImageProcessor returns them).
Outputs: class_queries_logits (2, 50, 134), masks_queries_logits (2, 50, 40, 40) (masks at 1/4 resolution).
"""
import torch
from torch import nn
from transformers import EomtConfig, EomtForUniversalSegmentation

batch_size = 2
image_size = 160  # published 640
num_labels = 133


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = EomtForUniversalSegmentation(config)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.class_queries_logits, out.masks_queries_logits


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # tue-mps/coco_panoptic_eomt_large_640 config.json. Kept: patch 16, 4 register tokens, mlp_ratio 4, gelu,
    # layerscale_value 1.0, use_swiglu_ffn False, num_upscale_blocks 2, layer_norm_eps 1e-6, dropout / drop_path 0,
    # 133 labels.
    return [EomtConfig(
        hidden_size=128,  # published 1024
        num_hidden_layers=4,  # published 24
        num_attention_heads=2,  # published 16
        num_blocks=2,  # published 4 (query blocks at the end)
        num_queries=50,  # published 200
        image_size=image_size,  # published 640
        patch_size=16,
        num_register_tokens=4,
        num_upscale_blocks=2,
        mlp_ratio=4,
        hidden_act="gelu",
        layerscale_value=1.0,
        use_swiglu_ffn=False,
        layer_norm_eps=1e-6,
        hidden_dropout_prob=0.0,
        attention_dropout=0.0,
        drop_path_rate=0.0,
        num_labels=num_labels,
    )]
