"""diffusers `ZImageTransformer2DModel`: the Z-Image flow-matching diffusion transformer (Tongyi-MAI's "Scalable
Single-Stream DiT", S3-DiT). One forward = one velocity prediction for a batch of per-image token lists, as
ZImagePipeline calls it: each latent (16 x 1 x H x W) is cut into 2 x 2 patches and each caption (the variable
length hidden states of a Qwen3 text encoder, selected by its attention mask) is kept at its own length; both
sequences are padded per sample to a multiple of 32 with learned pad tokens and get 3-axis RoPE ids (the caption
along axis 0 from position 1, the image after it on axis 0 and at its (h, w) on axes 1-2); image tokens pass through
"noise refiner" blocks (timestep-modulated) and caption tokens (RMSNorm + Linear embedded) through unmodulated
"context refiner" blocks; then the two are concatenated per sample into one sequence [image, caption] (a boolean
key-padding mask where the batch's lengths differ) and run through the main single-stream blocks. Every block is a
sandwich-norm transformer block: RMSNorm before and after attention and before and after the SwiGLU FFN, per-head
RMS q/k-norm, complex RoPE, tanh-gated residuals and 1 + scale modulation from a 256-d timestep embedding; the final
layer is a LayerNorm with a timestep scale and a Linear, unpatchified per sample. After `Tongyi-MAI/Z-Image-Turbo`
(the ZImageTransformer2DModel defaults), shrunk.

Shrunk: dim 3840 -> 128, 30 main layers -> 2, 30 heads -> 4 (head_dim 128 -> 32, so axes_dims (32, 48, 48) -> (8,
12, 12)), cap_feat_dim 2560 (Qwen3-4B hidden) -> 64, latents 128 x 128 (1024 px) -> 32 x 32 (256 image tokens).
Kept: 2 noise-refiner + 2 context-refiner layers, patch 2, 16 latent channels, rope_theta 256, axes_lens (1024, 512,
512), t_scale 1000, qk_norm, norm_eps 1e-5. Inputs: latents (2, 16, 32, 32); the pipeline's normalised timestep
(1000 - t) / 1000 in [0, 1]; caption hidden states (2, 40, 64) with a boolean mask keeping 37 and 21 tokens (so the
captions pad to 64 and 32 tokens and the unified sequences to 320 and 288, with a key-padding mask). Output: the
predicted velocity (2, 16, 32, 32) (the per-sample output list, stacked).
"""
import torch
from diffusers import ZImageTransformer2DModel
from torch import nn

batch_size = 2
latent_size = 32
in_channels = 16
max_text_len = 40
cap_lens = [37, 21]
cap_feat_dim = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ZImageTransformer2DModel(**config)

    def forward(self, latents, timestep, prompt_embeds, prompt_mask):
        # ZImagePipeline: latents.unsqueeze(2).unbind(0); captions = prompt_embeds[i][prompt_mask[i]].
        x = list(latents.unsqueeze(2).unbind(dim=0))
        cap_feats = [prompt_embeds[i][prompt_mask[i]] for i in range(prompt_embeds.shape[0])]
        out = self.model(x, timestep, cap_feats, return_dict=False)[0]
        return torch.stack(out, dim=0).squeeze(2)


def get_inputs():
    latents = torch.randn(batch_size, in_channels, latent_size, latent_size)
    timestep = torch.tensor([0.0625, 0.6875]).repeat(batch_size)[:batch_size]  # (1000 - t) / 1000, t = 937.5, 312.5
    prompt_embeds = torch.randn(batch_size, max_text_len, cap_feat_dim)
    prompt_mask = torch.zeros(batch_size, max_text_len, dtype=torch.bool)
    for i in range(batch_size):
        prompt_mask[i, : cap_lens[i % len(cap_lens)]] = True
    return [latents, timestep, prompt_embeds, prompt_mask]


def get_init_inputs():
    # Tongyi-MAI/Z-Image-Turbo (the ZImageTransformer2DModel defaults). Kept: all_patch_size (2,),
    # all_f_patch_size (1,), in_channels 16, n_refiner_layers 2, qk_norm, norm_eps 1e-5, rope_theta 256, t_scale 1000,
    # axes_lens (1024, 512, 512).
    return [dict(
        all_patch_size=(2,),
        all_f_patch_size=(1,),
        in_channels=in_channels,
        dim=128,  # published 3840
        n_layers=2,  # published 30
        n_refiner_layers=2,
        n_heads=4,  # published 30
        n_kv_heads=4,  # published 30
        norm_eps=1e-5,
        qk_norm=True,
        cap_feat_dim=cap_feat_dim,  # published 2560
        rope_theta=256.0,
        t_scale=1000.0,
        axes_dims=[8, 12, 12],  # published [32, 48, 48]
        axes_lens=[1024, 512, 512],
    )]
