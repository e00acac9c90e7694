"""diffusers `HunyuanVideoTransformer3DModel`: the HunyuanVideo text-to-video flow-matching diffusion transformer
(Tencent, Kong et al. 2024, "HunyuanVideo: A Systematic Framework For Large Video Generative Models"), after
`hunyuanvideo-community/HunyuanVideo` `transformer/config.json`, shrunk.

The 16-channel causal-3D-VAE latents are cut into 1 x 2 x 2 patches by a Conv3d (one token per patch). The
LLaVA-Llama-3 prompt states (4096 wide) go through the token refiner: a linear projection, then 2
"individual token refiner" blocks (LayerNorm + bidirectional self-attention with biases, masked to the valid
prompt tokens (pairwise mask valid_i & valid_j, the first column always kept so padded rows are not empty),
LayerNorm + SiLU MLP, both residuals gated by a linear of SiLU(c), where c = timestep MLP + MLP of the masked mean
of the prompt states). Conditioning vector temb = timestep MLP + guidance MLP (guidance distillation: the
embedded guidance scale * 1000) + MLP of the pooled CLIP-L text embedding. 3-D RoPE (theta 256): each head's dims
split into frame / row / column parts (published 16 / 56 / 56 of 128), rotated by the token's (frame, row, column)
index, applied to the video tokens only.
Dual-stream blocks (MM-DiT, as Flux): separate adaLN-Zero (6 vectors each from temb) for the video and the text
stream, joint attention over [video; text] with separate QKV / output projections per stream, RMSNorm on q and k
per head, the key padding mask built from the prompt mask (padded text tokens masked out as keys for every
query); separate GELU(tanh) MLPs. Single-stream blocks: [video; text] concatenated, one adaLN (shift / scale /
gate), attention and the MLP run in parallel from the same normed input, their outputs concatenated and fused
by one linear, gated residual. Final: adaLN-continuous (LayerNorm without affine, scale / shift from temb),
linear to patch pixels, unpatchify.

Shrunk: 24 heads x 128 dims (3072 hidden) -> 4 heads x 32 dims (128 hidden), rope_axes_dim (16, 56, 56) ->
(4, 14, 14) (each part / 4, sum = head dim), 20 dual-stream layers -> 2, 40 single-stream layers -> 2; latents
33 frames x 90 x 160 (129 frames at 720 x 1280, the pipeline default) -> 3 frames x 8 x 8 (9 frames at 64 x 64 px;
the VAE compresses 4x in time, 8x in space): 3 x 4 x 4 = 48 video tokens instead of 118800; prompt length
256 (max_sequence_length) -> 16. Kept: 2 refiner layers, mlp_ratio 4, patch 2 x 2 (1 in time), 16 latent
channels, qk RMSNorm, guidance embedding, text_embed_dim 4096, pooled_projection_dim 768, rope_theta 256.

Inputs as the pipeline passes them: noisy latents (batch, 16, 3, 8, 8); timestep (batch,) (one float
flow-matching step in (0, 1000], `t.expand(batch)`); LLaVA-Llama-3 prompt states (batch, 16, 4096) with the
tokenizer's attention mask (batch, 16) (right padding; the second prompt 5 tokens shorter; cast to the transformer
dtype as the pipeline does); the CLIP-L pooled embedding (batch, 768); guidance = 6.0 (the pipeline default
guidance_scale) * 1000 per sample.
Output: `.sample` (batch, 16, 3, 8, 8): the predicted flow velocity.
"""
import torch
from diffusers import HunyuanVideoTransformer3DModel
from torch import nn

batch_size = 2
in_channels = 16  # VAE latent channels, as published
num_frames = 3  # latent frames: (9 - 1) // 4 + 1; published 33 ((129 - 1) // 4 + 1)
latent_height = 8  # 64 px // 8; published 90 (720 px)
latent_width = 8  # 64 px // 8; published 160 (1280 px)
seq_len = 16  # prompt tokens (max_sequence_length); published 256
text_embed_dim = 4096  # LLaVA-Llama-3-8B hidden states, as published
pooled_projection_dim = 768  # CLIP ViT-L/14 pooled output, as published
guidance_scale = 6.0  # pipeline default


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = HunyuanVideoTransformer3DModel(**config)

    def forward(self, hidden_states, timestep, encoder_hidden_states, encoder_attention_mask, pooled_projections,
                guidance):
        return self.model(
            hidden_states=hidden_states,
            timestep=timestep,
            encoder_hidden_states=encoder_hidden_states,
            encoder_attention_mask=encoder_attention_mask,
            pooled_projections=pooled_projections,
            guidance=guidance,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, in_channels, num_frames, latent_height, latent_width)
    t = torch.rand(()) * 999 + 1  # the flow-matching scheduler's (shifted) timestep
    timestep = t.expand(batch_size)  # as the pipeline passes it
    encoder_hidden_states = torch.randn(batch_size, seq_len, text_embed_dim)
    encoder_attention_mask = torch.ones(batch_size, seq_len)  # the pipeline casts the mask to the transformer dtype
    encoder_attention_mask[1, -5:] = 0  # the second prompt is 5 tokens shorter (right padding)
    pooled_projections = torch.randn(batch_size, pooled_projection_dim)
    guidance = torch.tensor([guidance_scale] * batch_size) * 1000.0  # as the pipeline builds it
    return [hidden_states, timestep, encoder_hidden_states, encoder_attention_mask, pooled_projections, guidance]


def get_init_inputs():
    # hunyuanvideo-community/HunyuanVideo transformer/config.json, shrunk where commented.
    return [dict(
        in_channels=in_channels,
        out_channels=in_channels,
        num_attention_heads=4,  # published 24
        attention_head_dim=32,  # published 128
        num_layers=2,  # dual-stream blocks; published 20
        num_single_layers=2,  # single-stream blocks; published 40
        num_refiner_layers=2,
        mlp_ratio=4.0,
        patch_size=2,
        patch_size_t=1,
        qk_norm="rms_norm",
        guidance_embeds=True,
        text_embed_dim=text_embed_dim,
        pooled_projection_dim=pooled_projection_dim,
        rope_theta=256.0,
        rope_axes_dim=(4, 14, 14),  # published (16, 56, 56); must sum to attention_head_dim
        image_condition_type=None,  # text-to-video
    )]
