"""diffusers `PRXTransformer2DModel`: the text-to-image flow-matching transformer of Photoroom's PRX
(`Photoroom/prx-512-t2i-sft`), one denoiser call as PRXPipeline makes it (a classifier-free-guidance pair: the same
latent and timestep, a negative and a positive prompt). Unlike MMDiT models it keeps a single image-token stream: the
T5Gemma text embeddings are projected once (txt_in Linear) and never updated, and in every block the image queries
attend over the concatenation of that block's text keys / values (a txt_kv_proj of the fixed text tokens, RMSNorm on
the text keys) and the image keys / values (img_qkv_proj, RMSNorm on q and k, 2-axis RoPE on image q / k only, built
as 2 x 2 rotation matrices per frequency with float64 angles), under a mask that drops the padded text tokens. The
latent is patchified 2 x 2 by a reshape and a Linear; the flow time t in [0, 1] becomes a sin-cos embedding (scaled by
1000) and a 2-Linear SiLU MLP. Each block: AdaLN modulation (one Linear of SiLU(t embedding) into shift / scale / gate
for attention and for the MLP), affine-free LayerNorm, the joint attention with a gated residual, LayerNorm, a
GELU-tanh gated MLP (gate / up / down, no biases) with a gated residual. Final AdaLN (shift / scale) LayerNorm,
Linear, un-patchify to the predicted velocity.

Shrunk: hidden 1792 -> 96, 28 heads -> 4 (head dim 64 -> 24, RoPE axes (32, 32) -> (12, 12)), 16 blocks -> 2,
context_in_dim 2304 (T5Gemma) -> 64, latent 16 ch x 32 x 32 (512 px) -> 16 x 16 x 16 (64 tokens), 12 text tokens.
Kept: in_channels 16, patch 2, mlp_ratio 3.5, RoPE theta 1e4, time_factor 1000, time_max_period 1e4, no bottleneck and
no resolution embedding (the latent-space model, not PRX-7B pixel). The per-block modulation Linear is zero in the
class (every gate 0: each block an identity until trained): its weight and bias get fixed small values here.
Inputs: hidden_states (2, 16, 16, 16), timestep (2,) = 0.6, encoder_hidden_states (2, 12, 64), attention_mask (2, 12)
bool (the negative prompt 5 tokens long, the positive 12). Output: the predicted velocity (2, 16, 16, 16).
"""
import torch
from diffusers import PRXTransformer2DModel
from torch import nn

batch_size = 2
latent_size = 16
text_len = 12


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PRXTransformer2DModel(**config)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for block in self.model.blocks:
                lin = block.modulation.lin
                lin.weight.copy_(torch.randn(lin.weight.shape, generator=gen) * 0.02)
                lin.bias.copy_(torch.randn(lin.bias.shape, generator=gen) * 0.1)

    def forward(self, hidden_states, timestep, encoder_hidden_states, attention_mask):
        return self.model(
            hidden_states=hidden_states,
            timestep=timestep,
            encoder_hidden_states=encoder_hidden_states,
            attention_mask=attention_mask,
            return_dict=False,
        )[0]


def get_inputs():
    hidden_states = torch.randn(batch_size, 16, latent_size, latent_size)
    timestep = torch.full((batch_size,), 0.6)
    encoder_hidden_states = torch.randn(batch_size, text_len, 64)
    attention_mask = torch.ones(batch_size, text_len, dtype=torch.bool)
    attention_mask[0, 5:] = False  # the (shorter) negative prompt
    return [hidden_states, timestep, encoder_hidden_states, attention_mask]


def get_init_inputs():
    return [dict(
        in_channels=16,
        patch_size=2,
        context_in_dim=64,  # published 2304
        hidden_size=96,  # published 1792
        mlp_ratio=3.5,
        num_heads=4,  # published 28
        depth=2,  # published 16
        axes_dim=[12, 12],  # published [32, 32]
        theta=10000,
        time_factor=1000.0,
        time_max_period=10000,
    )]
