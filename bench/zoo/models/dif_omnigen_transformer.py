"""diffusers `OmniGenTransformer2DModel`: OmniGen (Xiao et al., CVPR 2025, "OmniGen: Unified Image Generation"), a
flow-matching image generator that is a single Phi-3-style decoder over one interleaved sequence of text tokens,
input-image latents, a timestep token and the noisy output latents; one forward = one velocity prediction as
OmniGenPipeline calls it. Text ids are embedded by a token table; the placeholder spans of each prompt are
overwritten in place with the patch embeddings of that prompt's input-image latents (a separate 2 x 2 patch conv,
plus a 2D sin-cos table centre-cropped from a 192 x 192 grid), by slice assignment at per-sample positions given as
Python lists; a timestep token (sinusoidal projection + MLP) is appended, then the noisy latents' patch embeddings.
The joint sequence runs through pre-RMSNorm decoder blocks (multi-head attention with Phi-3 "su"-scaled RoPE:
per-frequency short / long rescaling factors picked by comparing the largest position id with the original 4096
context (a data-dependent branch), cos / sin multiplied by sqrt(1 + ln(32) / ln(4096)); fused gate-up SwiGLU MLP)
under a float additive mask built from OmniGen's 0/1 mask: causal over the text (and time token), bidirectional
inside each input-image span and over the output image, which sees the whole prompt; left padding gets position 0
and is masked as a key. The final RMSNorm'ed output-image tokens go through an AdaLayerNorm (scale / shift from the
timestep embedding) and a Linear, and are unpatchified.

Shrunk: hidden 3072 -> 64, 32 layers -> 2, 32 heads (kv 32) -> 4 (kv 4), intermediate 8192 -> 176, vocab 32064 ->
1000 (pad_token_id 32000 -> 999), output latents 128 x 128 (1024 px) -> 16 x 16 (64 tokens), the input image
latents 12 x 12 (36 tokens).
Kept: patch 2, 4 latent channels, rms_norm_eps 1e-5, rope_base 1e4, max_position_embeddings 131072 / original
4096, pos_embed_max_size 192, time_step_dim 256, flip_sin_to_cos, silu timestep MLPs. The "su" rope_scaling factor
lists are per frequency (48 entries published, Phi-3-mini-128k's); here 8 entries (head_dim 16) are written as
the same kind of curves: short factors rising from 1.0 to 1.2, long factors from 1.0 to 40.
Inputs: the noisy latents (2, 4, 16, 16); timestep (2,) = 750 for both (t = sigma x 1000, broadcast by the
pipeline); input_ids (2, 50): the first prompt 6 text tokens, a 36-token image placeholder (zeros), 8 text tokens;
the second a 20-token text-only prompt left-padded with 2 (the collator's pad); the input image latents (1, 4, 12,
12) for the first prompt's placeholder at [6, 42); attention_mask (2, 115, 115) and position_ids (2, 115) made as
OmniGenCollator makes them. Output: the velocity (2, 4, 16, 16).
"""
import torch
from diffusers import OmniGenTransformer2DModel
from torch import nn

batch_size = 2
latent_size = 16  # 128 px output / 8
input_latent_size = 12
num_output_tokens = (latent_size // 2) ** 2  # 64
num_input_image_tokens = (input_latent_size // 2) ** 2  # 36
text_prefix, text_suffix = 6, 8
text_only_len = 20
seq_len = text_prefix + num_input_image_tokens + text_suffix  # 50 text positions
image_span = (text_prefix, text_prefix + num_input_image_tokens)
collator_pad_id = 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = OmniGenTransformer2DModel(**config)

    def forward(self, hidden_states, timestep, input_ids, input_img_latents, attention_mask, position_ids):
        # OmniGenPipeline hands the input images as a list of (1, C, h, w) latents and their placeholder spans as a
        # {sample: [[start, end], ...]} dict
        return self.model(
            hidden_states=hidden_states,
            timestep=timestep,
            input_ids=input_ids,
            input_img_latents=list(input_img_latents.split(1)),
            input_image_sizes={0: [list(image_span)]},
            attention_mask=attention_mask,
            position_ids=position_ids,
        ).sample


def _collate(text_lens):
    """OmniGenCollator.create_position / create_mask / adjust_attention_for_input_images for left-padded prompts."""
    total = seq_len + 1 + num_output_tokens
    position_ids = torch.zeros(batch_size, total, dtype=torch.long)
    mask = torch.zeros(batch_size, total, total)
    for b, n in enumerate(text_lens):
        pad = seq_len - n
        position_ids[b, pad:] = torch.arange(n + 1 + num_output_tokens)
        m = torch.zeros(n + 1 + num_output_tokens, n + 1 + num_output_tokens)
        m[: n + 1, : n + 1] = torch.tril(torch.ones(n + 1, n + 1))  # causal text + time token
        m[n + 1:] = 1  # the output image sees everything
        mask[b, pad:, pad:] = m
        mask[b, :pad] = 1  # padded query rows are left unmasked, as the collator does
    s, e = image_span
    mask[0, s:e, s:e] = 1  # bidirectional inside the input image
    return mask, position_ids


def get_inputs():
    hidden_states = torch.randn(batch_size, 4, latent_size, latent_size)
    timestep = torch.full((batch_size,), 750.0)
    input_ids = torch.full((batch_size, seq_len), collator_pad_id, dtype=torch.long)
    input_ids[0] = torch.randint(3, 999, (seq_len,))
    input_ids[0, image_span[0]:image_span[1]] = 0  # the image placeholder the processor inserts
    input_ids[1, seq_len - text_only_len:] = torch.randint(3, 999, (text_only_len,))
    input_img_latents = torch.randn(1, 4, input_latent_size, input_latent_size)
    attention_mask, position_ids = _collate([seq_len, text_only_len])
    return [hidden_states, timestep, input_ids, input_img_latents, attention_mask, position_ids]


def get_init_inputs():
    # Shitao/OmniGen-v1-diffusers transformer/config.json (= the class defaults but rope_scaling). Kept: in_channels
    # 4, patch_size 2, rms_norm_eps 1e-5, rope_base 10000, max_position_embeddings 131072,
    # original_max_position_embeddings 4096, pos_embed_max_size 192, time_step_dim 256, flip_sin_to_cos,
    # downscale_freq_shift 0, silu.
    head_dim = 16
    n = head_dim // 2
    return [dict(
        in_channels=4,
        patch_size=2,
        hidden_size=64,  # published 3072
        rms_norm_eps=1e-5,
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        intermediate_size=176,  # published 8192
        num_layers=2,  # published 32
        pad_token_id=999,  # published 32000
        vocab_size=1000,  # published 32064
        max_position_embeddings=131072,
        original_max_position_embeddings=4096,
        rope_base=10000,
        rope_scaling={
            "type": "su",
            "short_factor": [1.0 + 0.2 * (i / (n - 1)) ** 2 for i in range(n)],
            "long_factor": [1.0 + 39.0 * (i / (n - 1)) ** 2 for i in range(n)],
        },
        pos_embed_max_size=192,
        time_step_dim=256,
        flip_sin_to_cos=True,
        downscale_freq_shift=0,
        timestep_activation_fn="silu",
    )]
