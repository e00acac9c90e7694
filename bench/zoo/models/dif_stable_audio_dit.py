"""diffusers `StableAudioDiTModel`: the Stable Audio Open 1.0 latent audio diffusion transformer (a 1-D sequence of
64-channel VAE latents, one per 2048 waveform samples, through a residual 1x1 Conv1d and a bias-free Linear to the
width; global conditioning: the two duration embeddings (seconds start / seconds total, concatenated channel-wise)
through a SiLU MLP plus a Gaussian-Fourier timestep embedding through a SiLU MLP, prepended to the sequence as ONE
extra token (no AdaLN); cross-attention conditioning: the T5 prompt states followed by the two duration tokens
through a SiLU MLP; pre-LayerNorm blocks of bias-free self-attention with a partial rotary embedding (the first half
of each head's dims rotated, half-split pairs), bias-free cross-attention with grouped-query K / V (2 query heads per
K / V head, no rotary on the keys), SwiGLU MLP with biases; bias-free linear out, the global token dropped, residual
1x1 Conv1d).

Architecture after stabilityai/stable-audio-open-1.0 `transformer/config.json`, shrunk: 24 heads x 64 dims (1536
hidden) -> 4 heads x 16 dims (64 hidden; rotary over 8 dims instead of 32), num_key_value_attention_heads 12 -> 2
(the 2:1 grouping kept), num_layers 24 -> 2, cross_attention_dim 768 -> 64, cross_attention_input_dim 768 (T5-base
width = the duration conditioners' width) -> 64, global_states_input_dim 1536 (2 x 768) -> 128 (2 x 64), 128 T5
tokens -> 8 (+ the 2 duration tokens), sample_size 1024 latent frames (47.55 s at 44.1 kHz) -> 32 (~1.5 s).
in_channels / out_channels 64 and time_proj_dim 256 kept.
Inputs: noisy latents (batch, 64, 32) (already scaled by the scheduler), timestep (1,) (the CosineDPMSolver timestep
atan(sigma) * 2 / pi in (0, 1), `t.unsqueeze(0)` as the pipeline passes it, broadcast over the batch),
encoder_hidden_states (batch, 10, 64) = [T5 prompt states (padded tokens zeroed, as encode_prompt does), seconds
start token, seconds end token], global_hidden_states (batch, 1, 128) (the two duration tokens concatenated on
channels, as the pipeline builds them), encoder_attention_mask (batch, 10) (bool: SDPA takes a bool keep-mask; the
second prompt 3 tokens shorter, the duration tokens always kept). The rotary (cos, sin) over the 1 + 32 positions is
computed in Model.__init__ as the pipeline computes it (get_1d_rotary_pos_embed(head_dim // 2, ...)) and passed as
rotary_embedding.
Output: `.sample` (batch, 64, 32): the denoiser's v-prediction.
"""
import torch
from diffusers import StableAudioDiTModel
from diffusers.models.embeddings import get_1d_rotary_pos_embed
from torch import nn

batch_size = 2
in_channels = 64  # VAE latent channels, as published
seq_len = 32  # latent frames; published sample_size 1024
text_len = 8  # T5 tokens; published 128
cond_dim = 64  # T5 / duration-conditioner width (cross_attention_input_dim); published 768
attention_head_dim = 16  # published 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = StableAudioDiTModel(**config)
        # As the pipeline: rotary over half of each head's dims, for the global token + the latent frames.
        cos, sin = get_1d_rotary_pos_embed(
            config["attention_head_dim"] // 2, seq_len + 1, use_real=True, repeat_interleave_real=False
        )
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)

    def forward(self, hidden_states, timestep, encoder_hidden_states, global_hidden_states, encoder_attention_mask):
        return self.model(
            hidden_states,
            timestep,
            encoder_hidden_states=encoder_hidden_states,
            global_hidden_states=global_hidden_states,
            rotary_embedding=(self.rope_cos, self.rope_sin),
            encoder_attention_mask=encoder_attention_mask,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, in_channels, seq_len)
    timestep = torch.rand(1)  # atan(sigma) * 2 / pi, one per step: t.unsqueeze(0)
    text_mask = torch.ones(batch_size, text_len, dtype=torch.bool)
    text_mask[1, -3:] = False  # the second prompt is 3 tokens shorter
    prompt_embeds = torch.randn(batch_size, text_len, cond_dim) * text_mask.unsqueeze(-1)  # padded states zeroed
    seconds_start = torch.randn(batch_size, 1, cond_dim)
    seconds_end = torch.randn(batch_size, 1, cond_dim)
    encoder_hidden_states = torch.cat([prompt_embeds, seconds_start, seconds_end], dim=1)
    global_hidden_states = torch.cat([seconds_start, seconds_end], dim=2)
    encoder_attention_mask = torch.cat([text_mask, torch.ones(batch_size, 2, dtype=torch.bool)], dim=1)
    return [hidden_states, timestep, encoder_hidden_states, global_hidden_states, encoder_attention_mask]


def get_init_inputs():
    # Kept from stable-audio-open-1.0: in/out channels 64, time_proj_dim 256, query : key-value heads 2 : 1.
    return [dict(
        sample_size=seq_len,  # published 1024
        in_channels=in_channels,
        num_layers=2,  # published 24
        attention_head_dim=attention_head_dim,  # published 64
        num_attention_heads=4,  # published 24
        num_key_value_attention_heads=2,  # published 12
        out_channels=in_channels,
        cross_attention_dim=64,  # published 768
        time_proj_dim=256,
        global_states_input_dim=2 * cond_dim,  # published 1536
        cross_attention_input_dim=cond_dim,  # published 768
    )]
