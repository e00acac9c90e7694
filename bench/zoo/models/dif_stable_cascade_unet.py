"""diffusers `StableCascadeUNet` as the Stable Cascade stage-C prior (Wuerstchen v3): a 2-level UNet of ConvNeXt-style
blocks (depthwise conv, LayerNorm, GELU MLP with global response norm), timestep-ratio blocks (sinusoidal embeddings
of r, sca and crp driving scale / shift) and attention blocks whose keys are the tokens plus CLIP text, pooled text
and image conditioning; no spatial down-sampling (switch_level False). After `stabilityai/stable-cascade-prior`,
shrunk. Output: `.sample` (2, 16, 24, 24), the predicted noise of the 16-channel image-semantic latent.
"""
import torch
from diffusers import StableCascadeUNet
from torch import nn

batch_size = 2
latent_size = 24  # 1024 x 1024 images
seq_len = 8  # CLIP text tokens; published 77
clip_text_dim = 64  # published 1280 (CLIP ViT-bigG text)
clip_image_dim = 32  # published 768 (CLIP ViT-L image)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = StableCascadeUNet(**config)

    def forward(self, sample, timestep_ratio, clip_text_pooled, clip_text, clip_img):
        return self.model(
            sample,
            timestep_ratio=timestep_ratio,
            clip_text_pooled=clip_text_pooled,
            clip_text=clip_text,
            clip_img=clip_img,
        ).sample


def get_inputs():
    sample = torch.randn(batch_size, 16, latent_size, latent_size)
    timestep_ratio = torch.rand(batch_size)
    clip_text_pooled = torch.randn(batch_size, 1, clip_text_dim)
    clip_text = torch.randn(batch_size, seq_len, clip_text_dim)
    clip_img = torch.zeros(batch_size, 1, clip_image_dim)  # the pipeline's image embeddings with no image prompt
    return [sample, timestep_ratio, clip_text_pooled, clip_text, clip_img]


def get_init_inputs():
    # Kept: in / out channels 16, patch_size 1, timestep_ratio_embedding_dim 64, clip_seq 4, kernel 3,
    # block types (ResBlock, TimestepBlock, AttnBlock) per layer, self_attn, switch_level [False],
    # timestep conditioning ("sca", "crp"), repeat mappers 1.
    return [dict(
        in_channels=16,
        out_channels=16,
        timestep_ratio_embedding_dim=64,
        patch_size=1,
        conditioning_dim=64,  # published 2048
        block_out_channels=(64, 64),  # published (2048, 2048)
        num_attention_heads=(4, 4),  # published (32, 32)
        down_num_layers_per_block=(1, 2),  # published (8, 24)
        up_num_layers_per_block=(2, 1),  # published (24, 8)
        down_blocks_repeat_mappers=(1, 1),
        up_blocks_repeat_mappers=(1, 1),
        block_types_per_layer=(
            ("SDCascadeResBlock", "SDCascadeTimestepBlock", "SDCascadeAttnBlock"),
            ("SDCascadeResBlock", "SDCascadeTimestepBlock", "SDCascadeAttnBlock"),
        ),
        clip_text_in_channels=clip_text_dim,
        clip_text_pooled_in_channels=clip_text_dim,
        clip_image_in_channels=clip_image_dim,
        clip_seq=4,
        kernel_size=3,
        dropout=(0.1, 0.1),
        self_attn=True,
        timestep_conditioning_type=("sca", "crp"),
        switch_level=(False,),
    )]
