"""diffusers `CogView4Transformer2DModel`: the CogView4 text-to-image flow-matching diffusion transformer (THUDM /
ZhipuAI), after `THUDM/CogView4-6B` `transformer/config.json`, shrunk.

Single-stream joint attention over [text tokens; image tokens] with separate adaLN for the two streams. The
16-channel latents are cut into 2 x 2 patches and embedded by a linear layer, the GLM-4 text states by another
linear layer. Conditioning: sinusoidal timestep embedding (as wide as the model) -> MLP, plus an MLP of the
SDXL-style micro-conditions: sinusoidal embeddings (256 channels per number) of original_size (h, w), crop_coords
(top, left) and target_size (h, w), concatenated; temb = SiLU(sum). Block: one linear of temb gives 12 vectors
(shift / scale / gate for attention and MLP, for the image and the text stream each);
x = LN(x) * (1 + scale) + shift per stream; the streams are concatenated and attend jointly (MHA with biases,
LayerNorm without affine on q and k per head), a 2-D RoPE (theta 10000, half the head dims for rows, half for
columns, positions rescaled onto a 256 x 256 grid: row r of H maps to r * 256 // H) rotating only the image tokens;
x += gate * attn per stream; then LN + shift / scale, ONE GELU(tanh) MLP shared by both streams, x += gate * mlp.
Final: LayerNorm without affine, scale / shift from a linear of temb, linear to patch pixels, unpatchify.
Shrunk: 32 heads x 128 dims (4096 hidden) -> 4 heads x 32 dims (128 hidden), 28 layers -> 2, text_embed_dim 4096
(GLM-4-9B) -> 64, time_embed_dim 512 -> 128, 128 x 128 latents (1024 px) -> 16 x 24 (128 x 192 px: an 8 x 12
patch grid), prompt length 16 (the pipeline pads it to a multiple of 16). condition_dim 256, the RoPE grid (256,
256), patch_size 2 and 16 latent channels are kept.
Inputs as the pipeline passes them: noisy latents (batch, 16, 16, 24); GLM-4 text states (batch, 16, 64) with no
attention mask (the pipeline pads the shorter prompt on the left with pad-token states and passes no mask); the
timestep (batch,), a float scheduler timestep in (0, 1000] expanded to the batch; original_size and target_size
(batch, 2) = (128, 192) (the image size, the pipeline's default) and crop_coords (batch, 2) = (0, 0).
Output: `.sample` (batch, 16, 16, 24) (the predicted velocity).
"""
import torch
from diffusers import CogView4Transformer2DModel
from torch import nn

batch_size = 2
in_channels = 16
latent_height, latent_width = 16, 24  # 128 x 192 px; published sample_size 128 (1024 px)
vae_scale_factor = 8
text_len = 16  # prompt tokens (a multiple of 16, as the pipeline pads them)
text_embed_dim = 64  # GLM-4 width; published 4096


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CogView4Transformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep, original_size, target_size, crop_coords):
        return self.model(
            hidden_states=hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            timestep=timestep,
            original_size=original_size,
            target_size=target_size,
            crop_coords=crop_coords,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, in_channels, latent_height, latent_width)
    encoder_hidden_states = torch.randn(batch_size, text_len, text_embed_dim)
    t = torch.rand(()) * 999 + 1  # the flow-matching scheduler's (shifted) timestep
    timestep = t.expand(batch_size)  # as the pipeline passes it
    height, width = latent_height * vae_scale_factor, latent_width * vae_scale_factor
    original_size = torch.tensor([[height, width]], dtype=torch.float32).repeat(batch_size, 1)
    target_size = torch.tensor([[height, width]], dtype=torch.float32).repeat(batch_size, 1)
    crop_coords = torch.tensor([[0, 0]], dtype=torch.float32).repeat(batch_size, 1)
    return [hidden_states, encoder_hidden_states, timestep, original_size, target_size, crop_coords]


def get_init_inputs():
    # THUDM/CogView4-6B transformer/config.json. Kept: patch_size 2, in / out channels 16, condition_dim 256,
    # pos_embed_max_size 128, rope_axes_dim (256, 256).
    return [dict(
        num_layers=2,  # published 28
        attention_head_dim=32,  # published 128
        num_attention_heads=4,  # published 32
        text_embed_dim=text_embed_dim,  # published 4096
        time_embed_dim=128,  # published 512
        sample_size=latent_width,  # published 128
    )]
