"""diffusers `Krea2Transformer2DModel`: the single-stream flow-matching MMDiT of Krea 2, shrunk. Its text conditioning
is a STACK of hidden states tapped from several layers of a multimodal text encoder (batch, tokens, num_text_layers,
dim), and a small text-fusion transformer collapses that layer axis before the DiT sees it:
  - Layer-wise fusion: two pre-RMSNorm transformer blocks run over the num_text_layers axis independently for every
    token (batch x tokens sequences of length num_text_layers, no RoPE, no mask), a bias-free Linear(num_text_layers,
    1) mixes the layers into one vector per token, then two refiner blocks attend over the token sequence under the
    text padding mask. Text projection: RMSNorm, Linear, tanh-GELU, Linear to the DiT width.
  - DiT: [text ; image] tokens in one sequence (image latents already patchified, in_channels = 16 x 2 x 2),
    3-axis (t, h, w) rotary embedding (text rows at position 0, image rows at their grid coordinates). Every block:
    zero-centred RMSNorm (scale 1 + w), GQA self-attention with q / k RMSNorm, RoPE and a full-width sigmoid output
    gate, a SwiGLU MLP; the timestep embedding (cos-first sinusoid of 1000 t, GELU MLP) goes through ONE shared
    Linear to 6 modulation vectors (pre / post scale, shift, gate), and each block only adds its own learned 6 x d
    table to them. Padded text keys are masked in every block. Final adaptive RMSNorm (shared temb plus a 2 x d
    table) and a linear head on the image tokens give the velocity.

Shrunk (from the class defaults): 28 blocks -> 2, 48 heads of 128 (12 kv) -> 4 of 16 (2 kv) (hidden 6144 -> 64, RoPE
axes (32, 48, 48) -> (4, 6, 6)), intermediate 16384 -> 128; text encoder width 2560 -> 32 with 12 tapped layers -> 4,
text fusion heads 20 (20 kv) -> 2 (2 kv), text intermediate 6912 -> 64. Kept: in_channels 64, 2 layer-wise and 2
refiner text blocks, timestep embed 256, rope theta 1000, eps 1e-5.
Inputs: packed noisy latents (2, 64, 64) (an 8 x 8 latent grid), tapped text states (2, 12, 4, 32) with a mask (the
second prompt has 8 valid tokens), flow times (2,), position ids (76, 3). Output: velocity (2, 64, 64).
"""
import torch
from diffusers import Krea2Transformer2DModel
from torch import nn

batch_size = 2
text_len = 12
num_text_layers = 4
text_dim = 32
grid = 8
in_channels = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Krea2Transformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep, position_ids, encoder_attention_mask):
        return self.model(hidden_states=hidden_states, encoder_hidden_states=encoder_hidden_states, timestep=timestep,
                          position_ids=position_ids, encoder_attention_mask=encoder_attention_mask).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, grid * grid, in_channels)
    encoder_hidden_states = torch.randn(batch_size, text_len, num_text_layers, text_dim)
    timestep = torch.tensor([0.7, 0.25])
    hh, ww = torch.meshgrid(torch.arange(grid), torch.arange(grid), indexing="ij")
    image_ids = torch.stack([torch.zeros_like(hh), hh, ww], dim=-1).reshape(-1, 3)
    position_ids = torch.cat([torch.zeros(text_len, 3, dtype=torch.long), image_ids], dim=0)
    encoder_attention_mask = torch.ones(batch_size, text_len, dtype=torch.bool)
    encoder_attention_mask[1, 8:] = False
    return [hidden_states, encoder_hidden_states, timestep, position_ids, encoder_attention_mask]


def get_init_inputs():
    # Krea2Transformer2DModel defaults (the Krea 2 checkpoint), shrunk where commented.
    return [dict(
        in_channels=in_channels,
        num_layers=2,  # published 28
        attention_head_dim=16,  # published 128
        num_attention_heads=4,  # published 48
        num_key_value_heads=2,  # published 12
        intermediate_size=128,  # published 16384
        timestep_embed_dim=256,
        text_hidden_dim=text_dim,  # published 2560
        num_text_layers=num_text_layers,  # published 12
        text_num_attention_heads=2,  # published 20
        text_num_key_value_heads=2,  # published 20
        text_intermediate_size=64,  # published 6912
        num_layerwise_text_blocks=2,
        num_refiner_text_blocks=2,
        axes_dims_rope=(4, 6, 6),  # published (32, 48, 48)
        rope_theta=1000.0,
    )]
