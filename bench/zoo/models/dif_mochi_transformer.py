"""diffusers `MochiTransformer3DModel`: the Mochi 1 text-to-video flow-matching diffusion transformer, an
"asymmetric diffusion transformer" (AsymmDiT; Genmo 2024, `genmo/mochi-1-preview`), after
`genmo/mochi-1-preview` `transformer/config.json`, shrunk.

The 12-channel latents of the causal video VAE (6x in time, 8x in space) are cut into 2 x 2 patches frame by frame
(a Conv2d over every latent frame; one token per patch). The T5-XXL prompt states (4096 wide) give two things:
the caption tokens, projected by one Linear to the narrower text width, and a pooled vector from an attention pool
(8 heads, the query is the masked mean of the prompt tokens, keys / values are [mean; tokens] with the padded
tokens masked out) that is added to the timestep MLP (sinusoidal 256 -> SiLU MLP) to give the conditioning c.
Asymmetric dual-stream blocks (the distinctive part): the video stream is twice as wide as the text stream
(published 3072 vs 1536), each with its own modulation, projections and SwiGLU MLP (inner width 8/3 x its own
width), but they share one joint attention of common heads: per stream
    h = RMSNorm(x) * (1 + scale_msa(c))                                  (adaptive RMSNorm, no shift)
    q, k, v = W_qkv h per stream, into the same heads x head_dim; RMSNorm on q and k per head (learned weight)
    3-D RoPE on the video q / k only: learned "mixed" frequencies F (3, heads, head_dim / 2); each token's
    position p = (frame, row, column) (rows / columns centred and rescaled to a 192 x 192 grid area) gives the
    angles p . F per head and frequency pair, rotating the (even, odd) channel pairs;
    joint attention over [video tokens; this sample's VALID prompt tokens]: a Python loop over the batch that
    gathers the non-padded prompt tokens of each sample (torch.nonzero of the mask) and runs full bidirectional
    SDPA on the concatenation, zero-padding the output back to the common length;
    separate output projections, then the "sandwich" residual x + RMSNorm(out) * tanh(gate_msa(c)), and the MLP
    likewise: x + RMSNorm(SwiGLU(RMSNorm(x) * (1 + scale_mlp(c)))) * tanh(gate_mlp(c)).
The last block is "context pre-only": the text stream is only normed (adaptive RMSNorm) and used as keys / values;
its output is discarded. Final: adaLN-continuous (LayerNorm without affine, scale / shift from c), Linear to patch
pixels, unpatchify.

Shrunk: 24 heads x 128 dims (3072 video width) -> 4 heads x 32 dims (128), text width (pooled_projection_dim) 1536
-> 64 (the published 2 : 1 asymmetry kept), 48 blocks -> 3 (2 dual-stream + the context-pre-only last one);
latents 4 frames x 60 x 106 (19 frames at 480 x 848, the pipeline default) -> 3 frames x 12 x 20 (13 frames at
96 x 160 px): 3 x 6 x 10 = 180 video tokens instead of 4 x 30 x 53 = 6360; prompt length 256 (max_sequence_length)
-> 16. Kept: patch 2, 12 latent channels, qk RMSNorm, SwiGLU, time_embed_dim 256, text_embed_dim 4096 (the
attention pool, 4096 wide with 8 heads, holds most of this file's 52M parameters).
RoPE frequencies: `pos_frequencies` are learned parameters (the checkpoint's values cannot be loaded here) and
diffusers initialises them to zeros, which makes the rotation the identity; Model.__init__ therefore fills them
like RoPE-Mixed (Heo et al. 2024): per head and frequency pair, a random unit direction in (frame, row, column)
space scaled by the standard RoPE frequency 10000^(-2i / head_dim).

Inputs as the pipeline passes them: noisy latents (batch, 12, 3, 12, 20); timestep (batch,) (one float
flow-matching step in [0, 1000), `t.expand(batch)`); T5-XXL prompt states (batch, 16, 4096) with the tokenizer's
boolean attention mask (batch, 16) (right padding; the second prompt 5 tokens shorter).
Output: `.sample` (batch, 12, 3, 12, 20): the predicted flow velocity.
"""
import torch
from diffusers import MochiTransformer3DModel
from torch import nn

batch_size = 2
in_channels = 12  # VAE latent channels, as published
num_frames = 3  # latent frames: (13 - 1) // 6 + 1; published 4 ((19 - 1) // 6 + 1)
latent_height = 12  # 96 px // 8; published 60 (480 px)
latent_width = 20  # 160 px // 8; published 106 (848 px)
seq_len = 16  # prompt tokens (max_sequence_length); published 256
text_embed_dim = 4096  # T5-XXL hidden states, as published


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MochiTransformer3DModel(**config)
        # RoPE-Mixed-style init of the learned 3-D RoPE frequencies (diffusers' zero init is a no-op rotation).
        heads, half = self.model.pos_frequencies.shape[1:]
        direction = torch.nn.functional.normalize(torch.randn(3, heads, half), dim=0)
        magnitude = 10000.0 ** (-torch.arange(half).float() / half)
        with torch.no_grad():
            self.model.pos_frequencies.copy_(direction * magnitude)

    def forward(self, hidden_states, timestep, encoder_hidden_states, encoder_attention_mask):
        return self.model(
            hidden_states=hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            timestep=timestep,
            encoder_attention_mask=encoder_attention_mask,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, in_channels, num_frames, latent_height, latent_width)
    t = torch.rand(()) * 1000  # the flow-matching scheduler's timestep (sigma * 1000)
    timestep = t.expand(batch_size)  # as the pipeline passes it
    encoder_hidden_states = torch.randn(batch_size, seq_len, text_embed_dim)
    encoder_attention_mask = torch.ones(batch_size, seq_len, dtype=torch.bool)  # tokenizer mask, .bool()
    encoder_attention_mask[1, -5:] = False  # the second prompt is 5 tokens shorter (right padding)
    return [hidden_states, timestep, encoder_hidden_states, encoder_attention_mask]


def get_init_inputs():
    # genmo/mochi-1-preview transformer/config.json, shrunk where commented.
    return [dict(
        patch_size=2,
        num_attention_heads=4,  # published 24
        attention_head_dim=32,  # published 128
        num_layers=3,  # published 48 (the last one context-pre-only)
        pooled_projection_dim=64,  # text stream width; published 1536 (half the video width, kept)
        in_channels=in_channels,
        out_channels=None,
        qk_norm="rms_norm",
        text_embed_dim=text_embed_dim,
        time_embed_dim=256,
        activation_fn="swiglu",
        max_sequence_length=seq_len,  # published 256
    )]
