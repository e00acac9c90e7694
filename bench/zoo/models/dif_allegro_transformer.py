"""diffusers `AllegroTransformer3DModel`: the Allegro text-to-video DiT (per-frame 2 x 2 patchify, full 3-D
self-attention over all frames' tokens with 3-axis RoPE, cross-attention to projected T5 captions under the
prompt mask, adaLN-single timestep modulation), after `rhymes-ai/Allegro`, shrunk.
Output: `.sample` (2, 4, 4, 8, 8), the predicted noise of the video latents.
"""
import torch
from diffusers import AllegroTransformer3DModel
from diffusers.models.embeddings import get_3d_rotary_pos_embed_allegro
from torch import nn

batch_size = 2
num_frames = 4  # latent frames; published 22
latent_height, latent_width = 8, 8  # published 90 x 160
seq_len = 8  # T5 tokens; published 512
caption_channels = 64  # published 4096 (T5-v1.1-XXL)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AllegroTransformer3DModel(**config)

    def rotary_emb(self, num_frames, height, width, device):
        # AllegroPipeline._prepare_rotary_positional_embeddings, from the latent shape
        cfg = self.model.config
        grid_h, grid_w = height // cfg.patch_size, width // cfg.patch_size
        freqs_t, freqs_h, freqs_w, t, h, w = get_3d_rotary_pos_embed_allegro(
            embed_dim=cfg.attention_head_dim,
            crops_coords=((0, 0), (grid_h, grid_w)),
            grid_size=(grid_h, grid_w),
            temporal_size=num_frames,
            interpolation_scale=(cfg.interpolation_scale_t, cfg.interpolation_scale_h, cfg.interpolation_scale_w),
            device=device,
        )
        pos = torch.cartesian_prod(t.long(), h.long(), w.long())
        pos = pos.reshape(-1, 3).transpose(0, 1).reshape(3, 1, -1).contiguous()
        return (freqs_t, freqs_h, freqs_w), (pos[0], pos[1], pos[2])

    def forward(self, hidden_states, encoder_hidden_states, encoder_attention_mask, timestep):
        _, _, frames, height, width = hidden_states.shape
        return self.model(
            hidden_states=hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            encoder_attention_mask=encoder_attention_mask,
            timestep=timestep,
            image_rotary_emb=self.rotary_emb(frames, height, width, hidden_states.device),
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, 4, num_frames, latent_height, latent_width)
    encoder_hidden_states = torch.randn(batch_size, seq_len, caption_channels)
    encoder_attention_mask = torch.ones(batch_size, seq_len)
    encoder_attention_mask[1, -3:] = 0  # shorter prompt, padded
    encoder_hidden_states[1, -3:] = 0
    timestep = torch.randint(0, 1000, (batch_size,))
    return [hidden_states, encoder_hidden_states, encoder_attention_mask, timestep]


def get_init_inputs():
    # Kept: patch_size 2, patch_size_t 1, in / out channels 4, attention bias, gelu-approximate,
    # no-affine LayerNorms with eps 1e-6, RoPE interpolation scales (t 2.2, h 2.0, w 2.0).
    return [dict(
        patch_size=2,
        patch_size_t=1,
        num_attention_heads=2,  # published 24
        attention_head_dim=48,  # published 96
        in_channels=4,
        out_channels=4,
        num_layers=2,  # published 32
        dropout=0.0,
        cross_attention_dim=96,  # published 2304 (= hidden)
        attention_bias=True,
        sample_height=latent_height,  # published 90
        sample_width=latent_width,  # published 160
        sample_frames=num_frames,  # published 22
        activation_fn="gelu-approximate",
        norm_elementwise_affine=False,
        norm_eps=1e-6,
        caption_channels=caption_channels,
        interpolation_scale_h=2.0,
        interpolation_scale_w=2.0,
        interpolation_scale_t=2.2,
    )]
