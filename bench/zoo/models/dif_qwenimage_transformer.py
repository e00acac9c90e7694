"""diffusers `QwenImageTransformer2DModel`: the Qwen-Image MMDiT (every block is double-stream: separate image and
text weights for the adaLN modulation (shift / scale / gate from the timestep embedding), the QKV projections with
per-head RMSNorm on queries and keys, and the GELU MLPs, joined in one attention over the concatenated text + image
tokens; the text states are RMS-normalized and projected from the Qwen2.5-VL width; a 3-axis (frame, height,
width) complex rotary embedding, centred on the image (scale_rope: rows and columns take negative and positive
positions around 0) with the text tokens placed on the diagonal after the largest image index; padded text tokens
are masked out of the joint attention; a final AdaLayerNormContinuous + linear projection back to packed latents).

Architecture after Qwen/Qwen-Image `transformer/config.json`, shrunk: 24 heads x 128 dims (3072 hidden) ->
2 heads x 32 dims (64 hidden), axes_dims_rope (16, 56, 56) -> (4, 14, 14) (sums to the head dim), 60 layers -> 2,
joint_attention_dim (Qwen2.5-VL hidden size) 3584 -> 64.
Kept: patch_size 2, in_channels 64 (16 latent channels packed 2 x 2), out_channels 16 (so proj_out gives
2 * 2 * 16 = 64 channels per token), guidance_embeds False, zero_cond_t / use_additional_t_cond /
use_layer3d_rope False.
Inputs as QwenImagePipeline passes them for a 128 x 128 image (VAE scale 8): packed latents (2, 64, 64) (the
16 x 16 latent as 8 x 8 tokens), Qwen2.5-VL prompt states (2, 16, 64) (the second prompt 5 tokens shorter,
zero-padded), the prompt mask (long, second sample right-padded), timestep (2,) already divided by 1000;
img_shapes [[(1, 8, 8)]] * batch is built in forward as the pipeline builds it.
Output: `.sample` (2, 64, 64), the packed velocity prediction.
"""
import torch
from torch import nn
from diffusers import QwenImageTransformer2DModel

batch_size = 2
image_size = 128
vae_scale_factor = 8
latent_hw = image_size // vae_scale_factor  # 16
num_image_tokens = (latent_hw // 2) ** 2  # 64
text_len = 16
joint_attention_dim = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = QwenImageTransformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, encoder_hidden_states_mask, timestep):
        # QwenImagePipeline: one (frame, height, width) grid of packed tokens per sample
        img_shapes = [[(1, latent_hw // 2, latent_hw // 2)]] * hidden_states.shape[0]
        return self.model(
            hidden_states=hidden_states,
            timestep=timestep,
            guidance=None,
            encoder_hidden_states_mask=encoder_hidden_states_mask,
            encoder_hidden_states=encoder_hidden_states,
            img_shapes=img_shapes,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, num_image_tokens, 64)
    encoder_hidden_states = torch.randn(batch_size, text_len, joint_attention_dim)
    encoder_hidden_states_mask = torch.ones(batch_size, text_len, dtype=torch.long)
    # second prompt is 5 tokens shorter: the pipeline zero-pads its states and mask
    encoder_hidden_states[1, -5:] = 0
    encoder_hidden_states_mask[1, -5:] = 0
    timestep = torch.rand(batch_size)  # sigma in (0, 1], as the pipeline passes t / 1000
    return [hidden_states, encoder_hidden_states, encoder_hidden_states_mask, timestep]


def get_init_inputs():
    # Kept from Qwen-Image: patch_size 2, in_channels 64, out_channels 16, guidance_embeds False.
    return [dict(
        patch_size=2,
        in_channels=64,
        out_channels=16,
        num_layers=2,  # published 60
        attention_head_dim=32,  # published 128
        num_attention_heads=2,  # published 24
        joint_attention_dim=joint_attention_dim,  # published 3584
        guidance_embeds=False,
        axes_dims_rope=(4, 14, 14),  # published (16, 56, 56)
    )]
