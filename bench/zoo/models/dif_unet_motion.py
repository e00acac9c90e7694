"""diffusers `UNetMotionModel`: the AnimateDiff video UNet, i.e. a Stable Diffusion 1.5 UNet2DConditionModel whose
every down / up / mid block is followed by motion modules. The frames of the clip are folded into the batch, so the
resnets, the spatial transformers (self-attention over the pixels of one frame, cross-attention to the CLIP text,
GEGLU MLP) and the down / up samplers all work on one frame at a time; after each resnet (+ spatial transformer) a
motion module (AnimateDiffTransformer3D: GroupNorm, linear in, transformer blocks whose two attentions both attend
over the frames of each pixel position, with a sinusoidal frame-position embedding added before each, GEGLU MLP,
linear out, residual) mixes information across time. The timestep embedding is repeated per frame, skip connections
as in the 2D UNet.

Architecture after guoyww/animatediff-motion-adapter-v1-5-2 (`config.json`: motion modules with mid block) on the
runwayml/stable-diffusion-v1-5 `unet/config.json` base, shrunk: 4 levels (CrossAttnDownBlockMotion x 3 +
DownBlockMotion, UpBlockMotion + CrossAttnUpBlockMotion x 3) -> 2 levels (one of each block type kept),
block_out_channels (320, 640, 1280, 1280) -> (32, 64), layers_per_block 2 -> 1 (motion_layers_per_block follows),
8 heads (SD 1.5 "attention_head_dim" 8) -> 2, motion_num_attention_heads 8 -> 2, cross_attention_dim 768 (CLIP
ViT-L/14) -> 64, CLIP prompt 77 tokens -> 8, latents 16 frames x 64 x 64 -> 4 frames x 16 x 16. Kept: the motion
mid block (use_motion_mid_block, v1-5-2), one transformer layer per spatial / motion module, motion_max_seq_length
32 (frame-position table size), norm_num_groups 32, norm_eps 1e-5, silu, conv projections (use_linear_projection
False), in / out channels 4.
Inputs: noisy video latents (batch, 4, 4 frames, 16, 16) (channels before frames, as AnimateDiffPipeline passes
them), timestep (batch,), CLIP text hidden states (batch, 8, 64) (forward repeats them per frame, as the pipeline
does).
Output: `.sample` (batch, 4, 4, 16, 16): predicted noise.
"""
import torch
from torch import nn
from diffusers import UNetMotionModel

batch_size = 2
num_frames = 4  # published 16
latent_size = 16  # published 64 (512 px)
seq_len = 8  # CLIP tokens; published 77
cross_attention_dim = 64  # published 768 (CLIP ViT-L/14)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UNetMotionModel(**config)

    def forward(self, sample, timestep, encoder_hidden_states):
        # AnimateDiffPipeline repeats the prompt embeddings once per frame (frames are folded into the batch)
        encoder_hidden_states = encoder_hidden_states.repeat_interleave(sample.shape[2], dim=0)
        return self.model(sample, timestep, encoder_hidden_states=encoder_hidden_states).sample


def get_inputs():
    sample = torch.randn(batch_size, 4, num_frames, latent_size, latent_size)
    timestep = torch.randint(0, 1000, (batch_size,))
    encoder_hidden_states = torch.randn(batch_size, seq_len, cross_attention_dim)
    return [sample, timestep, encoder_hidden_states]


def get_init_inputs():
    return [dict(
        sample_size=latent_size,  # published 64
        in_channels=4,
        out_channels=4,
        down_block_types=("CrossAttnDownBlockMotion", "DownBlockMotion"),  # published 3 x CrossAttn + 1 plain
        up_block_types=("UpBlockMotion", "CrossAttnUpBlockMotion"),  # published 1 plain + 3 x CrossAttn
        block_out_channels=(32, 64),  # published (320, 640, 1280, 1280)
        layers_per_block=1,  # published 2
        downsample_padding=1,
        mid_block_scale_factor=1,
        act_fn="silu",
        norm_num_groups=32,
        norm_eps=1e-5,
        cross_attention_dim=cross_attention_dim,  # published 768
        transformer_layers_per_block=1,
        temporal_transformer_layers_per_block=1,
        temporal_transformer_layers_per_mid_block=1,
        use_linear_projection=False,
        num_attention_heads=2,  # published 8
        motion_max_seq_length=32,
        motion_num_attention_heads=2,  # published 8
        use_motion_mid_block=True,
        mid_block_layers=1,
    )]
