"""diffusers `HunyuanDiT2DModel`: the Hunyuan-DiT text-to-image diffusion transformer (2 x 2 patch embedding of the SD
VAE latents with no position embedding; two text encoders: the bilingual CLIP text encoder's states (cross-attention
width) and the mT5 states projected by an MLP, concatenated, with every padded token (per either encoder's attention
mask) replaced by a learned padding embedding; conditioning = timestep MLP + an MLP of [attention-pooled mT5 states
(one mean query over all mT5 tokens, unmasked), sinusoidal embeddings of the 6 image-size numbers, a style
embedding]; U-ViT-style long skips: each block of the second half (after two middle blocks) first concatenates its
input with the output of the mirrored first-half block, then LayerNorm + linear back to the width; blocks of
shift-only AdaLN self-attention with LayerNorm on Q / K and a 2-D rotary embedding on Q and K, LayerNorm +
cross-attention to the text tokens (Q / K LayerNorm too, the rotary embedding on the image queries only, no text
attention mask: padded tokens hold the padding embedding), LayerNorm + GELU(tanh) MLP; final AdaLayerNormContinuous,
linear, unpatchify).

Architecture after Tencent-Hunyuan/HunyuanDiT-Diffusers `transformer/config.json` (v1.1 and earlier: style and
image-size conditioning), shrunk: 16 heads x 88 dims (1408 hidden) -> 2 heads x 32 dims (64 hidden), 40 layers -> 4
(block 3 takes block 0's output through the skip, blocks 1 and 2 are the middle ones, as 19 and 20 are published),
cross_attention_dim 1024 (CLIP) -> 64, cross_attention_dim_t5 2048 (mT5-XL) -> 64 (the pooler's 8 heads kept),
pooled_projection_dim 1024 -> 64, text_len 77 -> 8, text_len_t5 256 -> 12, 128 x 128 latents (1024 px) -> 12 x 16
(96 x 128 px: a 6 x 8 patch grid).
Inputs: noisy latents (batch, 4, 12, 16), timestep (batch,) (a float, as the pipeline passes it), CLIP text states
(batch, 8, 64) and mask (batch, 8), mT5 states (batch, 12, 64) and mask (batch, 12) (the second prompt shorter in
both: right-padded), image_meta_size (batch, 6) (original size, target size, crop top-left, as the pipeline builds
it), style (batch,) (0, the only style). The 2-D RoPE (cos, sin) is computed in Model.__init__ as the pipeline
computes it (the patch grid fit into the 32 x 32 base grid of a 512 px image, aspect kept, centered) and passed as
image_rotary_emb.
Output: `.sample` (batch, 8, 12, 16) (learn_sigma: predicted noise, then the variance channels the pipeline drops).
"""
import torch
from diffusers import HunyuanDiT2DModel
from diffusers.models.embeddings import get_2d_rotary_pos_embed
from diffusers.pipelines.hunyuandit.pipeline_hunyuandit import get_resize_crop_region_for_grid
from torch import nn

batch_size = 2
latent_height, latent_width = 12, 16  # 96 x 128 px; published sample_size 128 (1024 px)
patch_size = 2
text_len = 8  # CLIP tokens; published 77
text_len_t5 = 12  # mT5 tokens; published 256
cross_attention_dim = 64  # CLIP width; published 1024
cross_attention_dim_t5 = 64  # mT5 width; published 2048


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = HunyuanDiT2DModel(**config)
        # The pipeline's RoPE for this latent size: the patch grid is fit into the base grid of a 512 px image
        # (512 // 8 // patch_size = 32 cells a side, aspect kept, centered; here rows 4-28 of 32, columns 0-32) and
        # each head gets a 2-D rotary embedding (half its dims for rows, half for columns).
        grid_height = latent_height // patch_size
        grid_width = latent_width // patch_size
        base_size = 512 // 8 // patch_size
        grid_crops_coords = get_resize_crop_region_for_grid((grid_height, grid_width), base_size)
        cos, sin = get_2d_rotary_pos_embed(
            self.model.inner_dim // self.model.num_heads, grid_crops_coords, (grid_height, grid_width), output_type="pt"
        )
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)

    def forward(
        self,
        hidden_states,
        timestep,
        encoder_hidden_states,
        text_embedding_mask,
        encoder_hidden_states_t5,
        text_embedding_mask_t5,
        image_meta_size,
        style,
    ):
        return self.model(
            hidden_states,
            timestep,
            encoder_hidden_states=encoder_hidden_states,
            text_embedding_mask=text_embedding_mask,
            encoder_hidden_states_t5=encoder_hidden_states_t5,
            text_embedding_mask_t5=text_embedding_mask_t5,
            image_meta_size=image_meta_size,
            style=style,
            image_rotary_emb=(self.rope_cos, self.rope_sin),
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, 4, latent_height, latent_width)
    timestep = torch.randint(0, 1000, (batch_size,)).float()  # DDPM timesteps, cast to the latents' dtype
    encoder_hidden_states = torch.randn(batch_size, text_len, cross_attention_dim)
    text_embedding_mask = torch.ones(batch_size, text_len, dtype=torch.long)
    text_embedding_mask[1, -4:] = 0  # the second prompt is 4 tokens shorter
    encoder_hidden_states_t5 = torch.randn(batch_size, text_len_t5, cross_attention_dim_t5)
    text_embedding_mask_t5 = torch.ones(batch_size, text_len_t5, dtype=torch.long)
    text_embedding_mask_t5[1, -4:] = 0
    # original_size (the pipeline's default 1024 x 1024), target_size (the image's 96 x 128), crop top-left (0, 0)
    image_meta_size = torch.tensor([[1024.0, 1024.0, 96.0, 128.0, 0.0, 0.0]]).repeat(batch_size, 1)
    style = torch.zeros(batch_size, dtype=torch.long)
    return [
        hidden_states,
        timestep,
        encoder_hidden_states,
        text_embedding_mask,
        encoder_hidden_states_t5,
        text_embedding_mask_t5,
        image_meta_size,
        style,
    ]


def get_init_inputs():
    # Kept from HunyuanDiT-Diffusers: in_channels 4, patch_size 2, gelu-approximate MLP, mlp_ratio 4.3637,
    # learn_sigma (8 output channels), layer_norm, style and image-size conditioning.
    return [dict(
        num_attention_heads=2,  # published 16
        attention_head_dim=32,  # published 88
        in_channels=4,
        patch_size=patch_size,
        activation_fn="gelu-approximate",
        sample_size=latent_width,  # published 128
        hidden_size=64,  # published 1408 (= num_attention_heads * attention_head_dim)
        num_layers=4,  # published 40
        mlp_ratio=4.3637,
        learn_sigma=True,
        cross_attention_dim=cross_attention_dim,  # published 1024
        norm_type="layer_norm",
        cross_attention_dim_t5=cross_attention_dim_t5,  # published 2048
        pooled_projection_dim=64,  # published 1024
        text_len=text_len,  # published 77
        text_len_t5=text_len_t5,  # published 256
        use_style_cond_and_image_meta_size=True,
    )]
