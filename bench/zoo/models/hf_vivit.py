"""ViViT video transformer, the unfactorised variant ("spatio-temporal attention", the paper's Model 1, which is what
VivitModel implements): tubelet embedding (a Conv3d with kernel = stride = 2 frames x 16 x 16 pixels, so each token
spans two frames), a CLS token, learned position embeddings over all tubelets, then pre-norm ViT blocks
(gelu_fast MLP) in which every token attends jointly over space and time; final LayerNorm; pooler = dense + tanh on the
CLS token, after `google/vivit-b-16x2-kinetics400`, shrunk.

VivitModel (with its pooler).
Shrunk: 32 frames of 224 x 224 -> 8 frames of 64 x 64 (tubelet (2, 16, 16) kept: 16 x 14 x 14 = 3136 -> 4 x 4 x 4 =
64 tubelet tokens, + CLS), hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head_dim 64 -> 32), intermediate
3072 -> 512.
Input: pixel_values (2, 8, 3, 64, 64) (batch, frames, channels, height, width, as VivitImageProcessor returns them).
Outputs: last_hidden_state (2, 65, 128), pooler_output (2, 128).
"""
import torch
from torch import nn
from transformers import VivitConfig, VivitModel

batch_size = 2
num_frames = 8
image_size = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VivitModel(config)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    return [torch.randn(batch_size, num_frames, 3, image_size, image_size)]


def get_init_inputs():
    # google/vivit-b-16x2-kinetics400 config.json. Kept: tubelet_size (2, 16, 16), gelu_fast, qkv_bias,
    # layer_norm_eps 1e-6, pooler (dense + tanh, width = hidden).
    return [VivitConfig(
        image_size=image_size,  # published 224
        num_frames=num_frames,  # published 32
        tubelet_size=[2, 16, 16],
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu_fast",
        layer_norm_eps=1e-6,
    )]
