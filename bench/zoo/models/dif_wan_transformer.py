"""diffusers `WanTransformer3DModel`: the Wan 2.1 text-to-video diffusion transformer (the 16-channel video VAE
latents patchified 1 x 2 x 2 by a Conv3d, one token per patch; a 3-D rotary embedding on Q and K of every
self-attention: each head's dims split into a frame part and row / column parts (2 * (head_dim // 6) dims each, the
rest for frames), interleaved pairs rotated by the token's frame / row / column index; the umT5 caption projected
by a GELU(tanh) MLP; conditioning: a sinusoidal timestep embedding through an MLP, then SiLU + linear to 6 x hidden,
shared by every block, each block adding its own learned 6-row scale-shift table; blocks of FP32-LayerNorm +
shift / scale self-attention with RMSNorm across heads on Q / K and a gated residual, FP32-LayerNorm (affine) +
cross-attention to the text tokens (Q / K RMSNorm too, no rotary, no mask: the pipeline zeroes the padded tokens'
states instead), shift / scale + GELU(tanh) MLP with a gated residual; final LayerNorm with shift / scale from the
timestep embedding plus a learned table, linear, unpatchify).

Architecture after Wan-AI/Wan2.1-T2V-1.3B-Diffusers `transformer/config.json`, shrunk: 12 heads x 128 dims (1536
hidden) -> 2 heads x 32 dims (64 hidden; rotary split 12 frame / 10 row / 10 column dims instead of 44 / 42 / 42),
ffn_dim 8960 -> 384 (ratio 5.83 -> 6), 30 layers -> 2, text_dim 4096 (umT5-XXL) -> 64, 512 text tokens
(max_sequence_length) -> 8, latents 21 frames x 60 x 104 (81 frames at 480 x 832) -> 3 frames x 8 x 8 (9 frames at
64 x 64 px; the VAE compresses 4x in time, 8x in space): 3 x 4 x 4 = 48 video tokens instead of 32760.
Inputs: noisy video latents (batch, 16, 3, 8, 8), timestep (batch,) (one int64 step of the UniPC flow scheduler,
`t.expand(batch)` as the pipeline passes it), umT5 states (batch, 8, 64) with the second prompt 3 tokens shorter:
its last 3 tokens' states zeroed, as the pipeline's `_get_t5_prompt_embeds` pads them (no attention mask reaches the
transformer).
Output: `.sample` (batch, 16, 3, 8, 8): predicted flow velocity.
"""
import torch
from diffusers import WanTransformer3DModel
from torch import nn

batch_size = 2
in_channels = 16  # VAE latent channels, as published
num_frames = 3  # latent frames: (9 - 1) // 4 + 1; published 21 ((81 - 1) // 4 + 1)
latent_height = 8  # 64 px // 8; published 60 (480 px)
latent_width = 8  # 64 px // 8; published 104 (832 px)
seq_len = 8  # umT5 tokens (max_sequence_length); published 512
text_dim = 64  # umT5 width; published 4096 (umT5-XXL)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = WanTransformer3DModel(**config)

    def forward(self, hidden_states, timestep, encoder_hidden_states):
        return self.model(
            hidden_states=hidden_states,
            timestep=timestep,
            encoder_hidden_states=encoder_hidden_states,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, in_channels, num_frames, latent_height, latent_width)
    timestep = torch.randint(0, 1000, (1,)).expand(batch_size)  # one scheduler step for the whole batch
    encoder_hidden_states = torch.randn(batch_size, seq_len, text_dim)
    encoder_hidden_states[1, -3:] = 0  # the second prompt is 3 tokens shorter: its padding states are zeros
    return [hidden_states, timestep, encoder_hidden_states]


def get_init_inputs():
    # Kept from Wan2.1-T2V-1.3B: patch_size (1, 2, 2), in/out channels 16, freq_dim 256, cross_attn_norm,
    # qk_norm "rms_norm_across_heads", eps 1e-6, no image embedding (T2V: image_dim / added_kv_proj_dim None),
    # rope_max_seq_len 1024.
    return [dict(
        patch_size=(1, 2, 2),
        num_attention_heads=2,  # published 12
        attention_head_dim=32,  # published 128
        in_channels=in_channels,
        out_channels=in_channels,
        text_dim=text_dim,  # published 4096
        freq_dim=256,
        ffn_dim=384,  # published 8960
        num_layers=2,  # published 30
        cross_attn_norm=True,
        qk_norm="rms_norm_across_heads",
        eps=1e-6,
        image_dim=None,
        added_kv_proj_dim=None,
        rope_max_seq_len=1024,
    )]
