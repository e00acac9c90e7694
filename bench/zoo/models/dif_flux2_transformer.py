"""diffusers `Flux2Transformer2DModel`: the rectified-flow MMDiT of FLUX.2 [dev] (Black Forest Labs 2025), shrunk.
What differs from FLUX.1 (dif_flux_transformer):
  - Modulation is SHARED across depth: the timestep + guidance embedding (sinusoid of 1000 t and 1000 g, two
    bias-free SiLU MLPs, summed) goes through three model-level bias-free Linears only, one for the image stream of
    all double blocks (2 x shift / scale / gate), one for their text stream, one for all single blocks (1 set); the
    blocks themselves own no AdaLN weights. The final AdaLayerNormContinuous has no bias either.
  - No bias anywhere (embedders, attention, MLPs, output), and the MLP is a SwiGLU whose gate and up halves come from
    one fused Linear (mlp_ratio 3).
  - Single-stream blocks are "parallel": ONE fused projection gives q, k, v and the SwiGLU input, attention and MLP
    run side by side, and ONE fused output Linear takes [attention ; MLP] back to the width.
  - 4-axis RoPE (t, h, w, l) with theta 2000: image tokens at (0, row, col, 0), text tokens at (0, 0, 0, index).
  - The text conditioning is wide (joint_attention_dim 15360: three stacked hidden-state taps of the Mistral text
    encoder), projected by the context embedder.
Double-stream blocks: per-stream LayerNorm (no affine) + modulation, joint attention over [text ; image] with per-head
RMSNorm on q / k and RoPE, gated residuals, per-stream SwiGLU MLPs.

Shrunk (from the class defaults, which are FLUX.2 [dev]'s): 48 heads of 128 -> 4 of 16 (width 6144 -> 64), 8 double
blocks -> 2, 48 single blocks -> 2, RoPE axes (32, 32, 32, 32) -> (4, 4, 4, 4), joint_attention_dim 15360 -> 96 (3
taps x 32). Kept: in_channels 128 (32 latent channels x 2 x 2 packed), patch_size 1, mlp_ratio 3, timestep /
guidance channels 256, rope theta 2000, eps 1e-6, guidance embeddings.
Inputs: packed latents (2, 64, 128) (an 8 x 8 latent grid), text states (2, 12, 96), flow times (2,), image ids
(64, 4), text ids (12, 4), guidance (2,). Output: velocity (2, 64, 128).
"""
import torch
from diffusers import Flux2Transformer2DModel
from torch import nn

batch_size = 2
text_len = 12
grid = 8
in_channels = 128
joint_attention_dim = 96


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Flux2Transformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep, img_ids, txt_ids, guidance):
        return self.model(hidden_states=hidden_states, encoder_hidden_states=encoder_hidden_states, timestep=timestep,
                          img_ids=img_ids, txt_ids=txt_ids, guidance=guidance).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, grid * grid, in_channels)
    encoder_hidden_states = torch.randn(batch_size, text_len, joint_attention_dim)
    timestep = torch.tensor([0.8, 0.3])
    zero = torch.arange(1)
    img_ids = torch.cartesian_prod(zero, torch.arange(grid), torch.arange(grid), zero)  # (t, h, w, l)
    txt_ids = torch.cartesian_prod(zero, zero, zero, torch.arange(text_len))
    guidance = torch.tensor([4.0, 4.0])
    return [hidden_states, encoder_hidden_states, timestep, img_ids, txt_ids, guidance]


def get_init_inputs():
    # Flux2Transformer2DModel defaults (black-forest-labs/FLUX.2-dev transformer), shrunk where commented.
    return [dict(
        in_channels=in_channels,
        num_layers=2,  # published 8
        num_single_layers=2,  # published 48
        attention_head_dim=16,  # published 128
        num_attention_heads=4,  # published 48
        joint_attention_dim=joint_attention_dim,  # published 15360
        axes_dims_rope=(4, 4, 4, 4),  # published (32, 32, 32, 32)
    )]
