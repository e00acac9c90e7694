"""diffusers `AutoencoderDC`: the Deep Compression Autoencoder (Chen et al. 2024, "Deep Compression Autoencoder for
Efficient High-Resolution Diffusion Models", MIT HAN Lab), the f32c32 autoencoder of SANA 1.0, after
`mit-han-lab/dc-ae-f32c32-sana-1.0-diffusers` (the config of diffusers' scripts/convert_dcae_to_diffusers.py),
shrunk. Full encode -> decode (`forward`).

32x spatial compression to 32 latent channels in 6 levels. Encoder: 3x3 conv in; per level, blocks then a
downsample. Levels 1-3: ResBlocks (3x3 conv, SiLU, 3x3 conv, RMSNorm over channels, residual). Levels 4-6:
EfficientViT blocks: multi-scale ReLU linear attention (1x1 q / k / v projections; a second "scale" of q / k / v
from a depthwise 5x5 conv + grouped 1x1 conv of them; heads of 32 channels; softmax-free
out = ReLU(q) (ReLU(k)^T [v; 1]), normalised by the appended ones row, in float32; the attention switches to
the quadratic form ReLU(k)^T ReLU(q) normalised over keys when a map has no more than head_dim (32) pixels), linear
out + RMSNorm + residual, then a GLUMBConv (1x1 conv, SiLU, 3x3 depthwise conv, SiLU-gated GLU, 1x1 conv, RMSNorm,
residual). Downsample ("conv"): stride-2 3x3 conv plus the residual-autoencoding shortcut (pixel-unshuffle
space-to-channel, then the mean over channel groups to the output width). Output: 3x3 conv to 32 channels plus a
shortcut averaging channel groups. Decoder mirrors it: 3x3 conv in plus a channel-repeat shortcut; per level an
upsample ("interpolate": nearest 2x + 3x3 conv, plus the shortcut channel-repeat + pixel-shuffle) then blocks
(ResBlock / EfficientViT with RMSNorm, SiLU); RMSNorm, ReLU, 3x3 conv out. No posterior: deterministic.

Published (SANA 1.0): block_out_channels (128, 256, 512, 512, 1024, 1024), encoder layers per level
(2, 2, 2, 3, 3, 3), decoder (3, 3, 3, 3, 3, 3), 1024 x 1024 images (32 x 32 latents). Shrunk: block_out_channels
-> (32, 64, 128, 128, 256, 256) (EfficientViT levels with 4, 4, 8 heads of 32 instead of 16, 16, 32), encoder layers
-> (1, 1, 1, 1, 1, 1), decoder layers -> (1, 1, 1, 1, 1, 1), images -> 256 x 256 (8 x 8 latents; the smallest
size at which every EfficientViT level still takes the linear-attention branch, as at 1024 px: the last level's
map has 8 x 8 = 64 > 32 pixels). Kept: 6 levels (f32), 32 latent channels, head dim 32, the multi-scale kernel 5
on levels 4-6, conv downsample / interpolate upsample, both shortcuts, RMSNorm + SiLU, ReLU before the output conv,
scaling_factor 0.41407 (used by pipelines only, not in forward).
Input: images in [-1, 1] (batch, 3, 256, 256). Output: the reconstruction `.sample` (batch, 3, 256, 256).
"""
import torch
from diffusers import AutoencoderDC
from torch import nn

batch_size = 2
image_size = 256  # published 1024 (SANA 1.0)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderDC(**config)

    def forward(self, sample):
        return self.model(sample).sample


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size) * 2 - 1]  # images normalised to [-1, 1]


def get_init_inputs():
    # mit-han-lab/dc-ae-f32c32-sana-1.0-diffusers, shrunk where commented.
    block_types = ("ResBlock", "ResBlock", "ResBlock", "EfficientViTBlock", "EfficientViTBlock", "EfficientViTBlock")
    return [dict(
        in_channels=3,
        latent_channels=32,
        attention_head_dim=32,
        encoder_block_types=block_types,
        decoder_block_types=block_types,
        encoder_block_out_channels=(32, 64, 128, 128, 256, 256),  # published (128, 256, 512, 512, 1024, 1024)
        decoder_block_out_channels=(32, 64, 128, 128, 256, 256),  # published (128, 256, 512, 512, 1024, 1024)
        encoder_layers_per_block=(1, 1, 1, 1, 1, 1),  # published (2, 2, 2, 3, 3, 3)
        decoder_layers_per_block=(1, 1, 1, 1, 1, 1),  # published (3, 3, 3, 3, 3, 3)
        encoder_qkv_multiscales=((), (), (), (5,), (5,), (5,)),
        decoder_qkv_multiscales=((), (), (), (5,), (5,), (5,)),
        upsample_block_type="interpolate",
        downsample_block_type="conv",
        decoder_norm_types="rms_norm",
        decoder_act_fns="silu",
        encoder_out_shortcut=True,
        decoder_in_shortcut=True,
        decoder_conv_act_fn="relu",
        scaling_factor=0.41407,
    )]
