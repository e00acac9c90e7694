"""diffusers `UNet3DConditionModel`: the ModelScope text-to-video denoising UNet (a Stable-Diffusion-style 2D UNet
run on every frame, each ResNet block followed by a temporal conv block (3 x 1 x 1 convs over frames) and each
spatial transformer (self-attention + cross-attention to text) followed by a temporal transformer (self-attention
across frames at each pixel); one extra temporal transformer right after conv_in; timestep embedding).

Architecture after damo-vilab/text-to-video-ms-1.7b `unet/config.json`, shrunk: 2 down/up levels instead of 4
(block_out_channels (32, 64) instead of (320, 640, 1280, 1280), cross-attention on all but the lowest level as
published, and in the mid block), layers_per_block 2 -> 1, attention_head_dim 64 -> 16 (the spatial and temporal
transformers get channels // attention_head_dim heads of attention_head_dim dims: 2 and 4 heads of 16 instead of
5 / 10 / 20 of 64; the temporal transformer after conv_in keeps its hard-coded 8 heads, of 16 dims instead of 64),
cross_attention_dim 1024 (OpenCLIP ViT-H) -> 64, 32 x 32 latents -> 16 x 16, 16 frames -> 4, 77 text tokens -> 8.
Inputs: noisy video latents (batch, 4, frames, 16, 16) (channels before frames, as the pipeline passes them),
timestep (batch,), text-encoder hidden states (batch, 8, 64) (CLIP text padded to max_length; the UNet takes
no text attention mask).
Output: `.sample` (batch, 4, frames, 16, 16): predicted noise. The temporal conv blocks' zero-initialized last convs
are re-initialized at random (see Model.__init__), so they are not identities as in an untrained model.
"""
import torch
from diffusers import UNet3DConditionModel
from diffusers.models.resnet import TemporalConvLayer
from torch import nn

batch_size = 2
num_frames = 4  # the pipeline's default is 16
latent_size = 16
text_len = 8  # CLIP max_length 77
cross_attention_dim = 64  # OpenCLIP ViT-H text width 1024


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UNet3DConditionModel(**config)
        # Every temporal conv block zero-initializes its last conv ("so the conv block is identity"), so a freshly
        # built model ignores them whatever its inputs. Stand in for trained weights: PyTorch's default conv init.
        for module in self.model.modules():
            if isinstance(module, TemporalConvLayer):
                module.conv4[-1].reset_parameters()

    def forward(self, sample, timestep, encoder_hidden_states):
        return self.model(sample, timestep, encoder_hidden_states).sample


def get_inputs():
    sample = torch.randn(batch_size, 4, num_frames, latent_size, latent_size)
    timestep = torch.randint(0, 1000, (batch_size,))
    encoder_hidden_states = torch.randn(batch_size, text_len, cross_attention_dim)
    return [sample, timestep, encoder_hidden_states]


def get_init_inputs():
    # Kept from text-to-video-ms-1.7b: in/out channels 4, silu, norm_num_groups 32, norm_eps 1e-5,
    # downsample_padding 1, mid_block_scale_factor 1, no time_cond_proj_dim.
    return [dict(
        sample_size=latent_size,  # published 32
        in_channels=4,
        out_channels=4,
        down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),  # published 3 x CrossAttnDownBlock3D + DownBlock3D
        up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"),  # published UpBlock3D + 3 x CrossAttnUpBlock3D
        block_out_channels=(32, 64),  # published (320, 640, 1280, 1280)
        layers_per_block=1,  # published 2
        downsample_padding=1,
        mid_block_scale_factor=1,
        act_fn="silu",
        norm_num_groups=32,
        norm_eps=1e-5,
        cross_attention_dim=cross_attention_dim,  # published 1024
        attention_head_dim=16,  # published 64
    )]
