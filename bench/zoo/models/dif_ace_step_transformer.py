"""diffusers `AceStepTransformer1DModel`: the ACE-Step 1.5 music-generation diffusion transformer (a flow-matching
DiT over 1D audio-VAE latents at 25 frames / s). One forward = one velocity prediction: the noisy latents (64
channels) are concatenated on the channel axis with the context latents (64 source-latent channels + 64
chunk-mask channels: what to keep / repaint), zero-padded to an even length and patchified by a stride-2 Conv1d;
the packed condition sequence (text, lyric and timbre encodings from the condition encoder) is projected by a
Linear. Two timestep paths (mean-flow style: t and t - r) each give a sinusoid -> MLP embedding and a 6-way AdaLN
projection, summed. Each block: AdaLN (shift / scale / gate from a learned table + the timestep projection) around
self-attention with per-head RMS q/k-norm, GQA and rotate-half RoPE (theta 1e6), alternating sliding-window
(bidirectional band |i - j| <= window, passed as an additive 4D mask) and full layers; an un-modulated RMSNorm
cross-attention to the condition sequence; an AdaLN-gated SwiGLU MLP. Output: AdaLN-modulated RMSNorm, a stride-2
ConvTranspose1d back to 64 channels, cropped to the input length. After the ACE-Step 1.5 turbo DiT (the
AceStepTransformer1DModel defaults; the XL turbo, `ACE-Step/acestep-v15-xl-turbo-diffusers`, is wider), shrunk.

Shrunk: hidden 2048 -> 128, 24 layers -> 2 (one sliding-window, one full), 16 heads / 8 kv heads -> 4 / 2,
head_dim 128 -> 32, intermediate 6144 -> 384, sliding window 128 -> 16 (so that the 63 patch tokens see a band),
10 s clips -> 5 s (125 latent frames: odd, so the patchify padding path runs). Kept: 64 latent channels,
in_channels 192 (64 noisy + 128 context), patch 2, rope_theta 1e6, rms_norm_eps 1e-6, alternating
sliding / full layers, dual timestep embedding.
Inputs: hidden_states (2, 125, 64) noisy latents; timestep (2,) flow times in [0, 1]; timestep_r = timestep (plain
flow-matching inference, so the t - r path sees 0); encoder_hidden_states (2, 48, 128) condition-encoder output;
context_latents (2, 125, 128): source latents (zeros: text-to-music) and the chunk mask (ones: generate every
frame). Output: the predicted velocity `.sample` (2, 125, 64).
"""
import torch
from diffusers import AceStepTransformer1DModel
from torch import nn

batch_size = 2
num_frames = 125  # 5 s at 25 latent frames / s
latent_dim = 64
cond_len = 48
hidden_size = 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AceStepTransformer1DModel(**config)

    def forward(self, hidden_states, timestep, timestep_r, encoder_hidden_states, context_latents):
        return self.model(
            hidden_states=hidden_states,
            timestep=timestep,
            timestep_r=timestep_r,
            encoder_hidden_states=encoder_hidden_states,
            context_latents=context_latents,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, num_frames, latent_dim)
    timestep = torch.tensor([0.9, 0.35]).repeat(batch_size)[:batch_size]
    timestep_r = timestep.clone()
    encoder_hidden_states = torch.randn(batch_size, cond_len, hidden_size)
    src_latents = torch.zeros(batch_size, num_frames, latent_dim)  # text-to-music: no source audio
    chunk_mask = torch.ones(batch_size, num_frames, latent_dim)  # generate every frame
    context_latents = torch.cat([src_latents, chunk_mask], dim=-1)
    return [hidden_states, timestep, timestep_r, encoder_hidden_states, context_latents]


def get_init_inputs():
    # ACE-Step 1.5 turbo DiT (the class defaults). Kept: in_channels 192, audio_acoustic_hidden_dim 64, patch_size 2,
    # rope_theta 1e6, rms_norm_eps 1e-6, no attention bias, layer types alternating sliding / full.
    return [dict(
        hidden_size=hidden_size,  # published 2048
        intermediate_size=384,  # published 6144
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        num_key_value_heads=2,  # published 8
        head_dim=32,  # published 128
        in_channels=192,
        audio_acoustic_hidden_dim=latent_dim,
        patch_size=2,
        rope_theta=1000000.0,
        rms_norm_eps=1e-6,
        sliding_window=16,  # published 128
        is_turbo=True,
    )]
