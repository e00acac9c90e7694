"""diffusers `ErnieImageTransformer2DModel`: the ERNIE-Image (Baidu) single-stream flow-matching DiT, one velocity
prediction as ErnieImagePipeline calls it, shrunk. Distinctive features, all kept:
  - ONE shared adaLN modulation for the whole network: the timestep embedding goes through a single SiLU + Linear to
    six (shift, scale, gate) vectors for attention and MLP, and every block reuses the same six (no per-block
    modulation weights, unlike DiT / Flux);
  - single stream in sequence-first layout (S, B, H): image tokens (a patch-1 Conv2d over the already 2 x 2
    patchified 128-channel latents) followed by the projected text-encoder hidden states, concatenated;
  - 3-axis RoPE (rotate-half form, theta 256, axes 32 / 48 / 48 of the head): text tokens at (t, 0, 0) for t = 0..;
    image tokens at (text_len, y, x), i.e. the image's first axis is each sample's own caption length;
  - key-padding attention mask from per-sample caption lengths (image tokens always visible), per-head RMSNorm
    q / k norm, bias-free projections, RMSNorm (not LayerNorm) before the modulation, fp32 modulation and gated
    residuals, GELU-gated MLP (up * gelu(gate));
  - final AdaLN-continuous (LayerNorm without affine, timestep-conditioned scale / shift), Linear, only the image
    tokens kept and unpatchified.
Shrunk (from the ErnieImageTransformer2DModel defaults): hidden 3072 -> 64, 24 heads -> 2 (head_dim 128 -> 32, so
rope_axes_dim (32, 48, 48) -> (8, 12, 12)), 24 layers -> 3, ffn 8192 -> 192, latent channels 128 (32 VAE channels x
2 x 2) -> 32 (8 x 2 x 2), text_in_dim 2560 -> 96; latents 64 x 64 (1024 px) -> 16 x 16. Kept: patch_size 1, rope
theta 256, eps 1e-6, qk_layernorm.
Stand-ins for trained weights: the shared adaLN Linear and the final Linear are zero-initialised by the library
(the output would be exactly 0); they are drawn from N(0, 0.02^2).
Inputs: patchified latents (2, 32, 16, 16); timestep (2,) on the flow-matching scale sigma * 1000; text hidden states
(2, 12, 96) zero-padded after each caption as ErnieImagePipeline._pad_text does; text_lens (2,) = [12, 7].
Output: the predicted velocity (2, 32, 16, 16).
"""
import torch
from diffusers import ErnieImageTransformer2DModel
from torch import nn

batch_size = 2
latent_size = 16
in_channels = 32
text_lens = [12, 7]
text_in_dim = 96


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ErnieImageTransformer2DModel(**config)
        with torch.no_grad():
            for linear in (self.model.adaLN_modulation[-1], self.model.final_linear):
                nn.init.normal_(linear.weight, std=0.02)
                nn.init.normal_(linear.bias, std=0.02)

    def forward(self, hidden_states, timestep, text_bth, text_lens):
        return self.model(hidden_states=hidden_states, timestep=timestep, text_bth=text_bth, text_lens=text_lens,
                          return_dict=False)[0]


def get_inputs():
    latents = torch.randn(batch_size, in_channels, latent_size, latent_size)
    timestep = torch.tensor([937.5, 312.5])[:batch_size]
    lens = torch.tensor([text_lens[i % len(text_lens)] for i in range(batch_size)], dtype=torch.long)
    text_bth = torch.zeros(batch_size, int(lens.max()), text_in_dim)
    for i in range(batch_size):
        text_bth[i, : lens[i]] = torch.randn(int(lens[i]), text_in_dim)
    return [latents, timestep, text_bth, lens]


def get_init_inputs():
    return [dict(
        hidden_size=64,  # default 3072
        num_attention_heads=2,  # default 24
        num_layers=3,  # default 24
        ffn_hidden_size=192,  # default 8192
        in_channels=in_channels,  # default 128
        out_channels=in_channels,  # default 128
        patch_size=1,
        text_in_dim=text_in_dim,  # default 2560
        rope_theta=256,
        rope_axes_dim=(8, 12, 12),  # default (32, 48, 48)
        eps=1e-6,
        qk_layernorm=True,
    )]
