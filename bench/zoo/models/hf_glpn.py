"""GLPN monocular metric depth estimation (hierarchical Mix Transformer encoder, as SegFormer's: overlapping patch
merging by strided convolutions with padding (7x7 stride 4, then 3x3 stride 2) + LayerNorm, efficient self-attention
whose keys / values are spatially reduced by a strided conv + LayerNorm (sr_ratios 8 / 4 / 2 / 1), Mix-FFN with a 3x3
depthwise conv between its two linears, no position embeddings, a LayerNorm after each stage; lightweight decoder,
coarse to fine: each stage's map 1x1-projected to 64 channels (the stride-32 one only), then at every finer stage a
selective feature fusion block (concat the local (encoder skip) and global (decoder) features, 3x3 conv + BN + ReLU,
3x3 conv + BN + ReLU halving the width, 3x3 conv to 2 channels, sigmoid: two per-pixel attention maps weighting the
local and the global features, summed) and a bilinear 2x upsampling, with a final 2x upsampling to the input size;
head: 3x3 conv + ReLU, 3x3 conv to 1 channel, sigmoid times max_depth), after `vinvino02/glpn-nyu`, shrunk.

GLPNForDepthEstimation. Encoder MiT-b4 -> MiT-b0 widths at a reduced depth: hidden_sizes (64, 128, 320, 512) ->
(32, 64, 160, 256), num_attention_heads (1, 2, 5, 8) kept (head size 64 -> 32), depths (3, 8, 27, 3) -> (1, 1, 2, 1);
image 480 x 640 (NYU Depth v2) -> 128 x 160 (stages at 32 x 40, 16 x 20, 8 x 10 and 4 x 5 tokens; the stride-4
stage's keys / values reduced to 4 x 5).
Kept: decoder_hidden_size 64, max_depth 10 (NYU, metres), sr_ratios, patch sizes (7, 3, 3, 3), strides (4, 2, 2, 2),
mlp_ratios 4, gelu, layer_norm_eps 1e-6, drop_path_rate 0.1 (inactive in eval), head_in_index -1.
Input: pixel_values (2, 3, 128, 160) (GLPNImageProcessor only rescales to [0, 1] and rounds the size down to a
multiple of 32; no mean / std).
Output: predicted_depth (2, 128, 160), in (0, 10). The decoder and head convs are re-initialized (see
Model.__init__) so that the fusion attention maps and the depth map are not (near) constant.
"""
import torch
from torch import nn
from transformers import GLPNConfig, GLPNForDepthEstimation

batch_size = 2
height, width = 128, 160  # published 480 x 640


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GLPNForDepthEstimation(config)
        # transformers initializes the decoder's and head's convs with N(0, initializer_range = 0.02) and zero bias:
        # every selective-fusion attention map comes out 0.5 +- 0.005 (a fixed half / half mix of the local and global
        # features, whatever the image) and the head's logit -0.04 +- 0.01, so the depth map is 4.9 +- 0.04 (of 0..10)
        # everywhere. Stand in for trained weights: the decoder and head convs PyTorch's default init (as the original
        # GLPN code leaves them) for the convs that end in a sigmoid (the fusion blocks' 2-channel attention convs and
        # the head's last conv), He-normal (fan_in) for all the others, so that the signal keeps its scale through the
        # fusion blocks (attention maps then 0.45 +- 0.1, depth 4.6 +- 0.3).
        last_conv = self.model.head.head[-1]
        for part in (self.model.decoder, self.model.head):
            for module in part.modules():
                if isinstance(module, nn.Conv2d):
                    module.reset_parameters()
                    if module is not last_conv and module.out_channels != 2:
                        nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).predicted_depth


def get_inputs():
    return [torch.rand(batch_size, 3, height, width)]


def get_init_inputs():
    # vinvino02/glpn-nyu config.json. Kept: 4 encoder blocks, sr_ratios (8, 4, 2, 1), patch_sizes (7, 3, 3, 3),
    # strides (4, 2, 2, 2), mlp_ratios 4, gelu, dropouts 0, drop_path_rate 0.1, layer_norm_eps 1e-6,
    # initializer_range 0.02, decoder_hidden_size 64, max_depth 10, head_in_index -1.
    return [GLPNConfig(
        num_channels=3,
        num_encoder_blocks=4,
        depths=[1, 1, 2, 1],  # published [3, 8, 27, 3]
        sr_ratios=[8, 4, 2, 1],
        hidden_sizes=[32, 64, 160, 256],  # published [64, 128, 320, 512]
        patch_sizes=[7, 3, 3, 3],
        strides=[4, 2, 2, 2],
        num_attention_heads=[1, 2, 5, 8],
        mlp_ratios=[4, 4, 4, 4],
        hidden_act="gelu",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        initializer_range=0.02,
        drop_path_rate=0.1,
        layer_norm_eps=1e-6,
        decoder_hidden_size=64,
        max_depth=10,
        head_in_index=-1,
    )]
