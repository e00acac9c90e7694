"""diffusers `HiDreamImageTransformer2DModel`: the HiDream-I1 sparse diffusion transformer (a flow-matching MMDiT
whose feed-forward layers are mixtures of experts: the image-stream FFN of each dual-stream block and the FFN of
each single-stream block are DeepSeek-style MoEs (softmax gate, top-2 of 4 routed SwiGLU experts dispatched by an
argsort / bincount loop, plus a shared SwiGLU expert of half width); dual-stream blocks (separate image / text
weights, joint attention with queries and keys RMS-normalised over the full width, not per head, adaLN modulation
from timestep + pooled-CLIP embedding) followed by single-stream blocks over the concatenated sequence; the text
conditioning is re-injected per block: every block takes a different hidden layer of a Llama-3.1-8B text encoder
(projected by its own linear layer), appends it to the running text stream (which starts as the T5 tokens plus the
last block's Llama tokens) and drops it again after the block; 3-axis (Flux-style) RoPE, 2 x 2 patches), after
`HiDream-ai/HiDream-I1-Full` `transformer/config.json`, shrunk.

Shrunk: 16 dual-stream + 32 single-stream blocks -> 2 + 2, 20 heads -> 4, head_dim 128 -> 32 (so inner dim
2560 -> 128), axes_dims_rope (64, 32, 32) -> (16, 8, 8), caption_channels (4096, 4096) (T5-XXL and Llama
hidden sizes) -> (64, 64), text_emb_dim 2048 (CLIP-L + CLIP-G pooled) -> 64; the Llama layers: 32 stacked hidden
states, llama_layers 0 ... 31 then 31 repeated (one per block) -> 3 stacked states, llama_layers (0, 1, 2, 2)
(one per block, the last repeated); 128 x 128 latents (1024 px) -> 32 x 32 (256 image tokens), 128-token
prompts -> 16. Kept: 16 latent channels (Flux VAE), patch 2, 4 routed experts / top-2, max_resolution 128 x 128.
Inputs: noisy latents (2, 16, 32, 32), flow timesteps (2,) in [0, 1000], T5 states (2, 16, 64), the stacked
Llama states (3, 2, 16, 64), pooled CLIP embeddings (2, 64). Output: the predicted velocity `.sample`
(2, 16, 32, 32).
"""
import torch
from torch import nn
from diffusers import HiDreamImageTransformer2DModel

batch_size = 2
latent_size = 32
in_channels = 16
text_len = 16
caption_dim = 64
text_emb_dim = 64
num_llama_states = 3


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = HiDreamImageTransformer2DModel(**config)

    def forward(self, hidden_states, timesteps, encoder_hidden_states_t5, encoder_hidden_states_llama3,
                pooled_embeds):
        return self.model(
            hidden_states=hidden_states,
            timesteps=timesteps,
            encoder_hidden_states_t5=encoder_hidden_states_t5,
            encoder_hidden_states_llama3=encoder_hidden_states_llama3,
            pooled_embeds=pooled_embeds,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, in_channels, latent_size, latent_size)
    timesteps = torch.tensor([937.5, 312.0])  # sigma * 1000 from the flow-matching schedule
    encoder_hidden_states_t5 = torch.randn(batch_size, text_len, caption_dim) * 0.2
    encoder_hidden_states_llama3 = torch.randn(num_llama_states, batch_size, text_len, caption_dim)
    pooled_embeds = torch.randn(batch_size, text_emb_dim)
    return [hidden_states, timesteps, encoder_hidden_states_t5, encoder_hidden_states_llama3, pooled_embeds]


def get_init_inputs():
    # HiDream-ai/HiDream-I1-Full transformer/config.json. Kept: patch_size 2, in/out channels 16,
    # num_routed_experts 4, num_activated_experts 2, max_resolution (128, 128).
    return [dict(
        patch_size=2,
        in_channels=in_channels,
        out_channels=in_channels,
        num_layers=2,  # published 16
        num_single_layers=2,  # published 32
        attention_head_dim=32,  # published 128
        num_attention_heads=4,  # published 20
        caption_channels=[caption_dim, caption_dim],  # published [4096, 4096]
        text_emb_dim=text_emb_dim,  # published 2048
        num_routed_experts=4,
        num_activated_experts=2,
        axes_dims_rope=(16, 8, 8),  # published (64, 32, 32)
        max_resolution=(128, 128),
        llama_layers=[0, 1, 2, 2],  # published [0, 1, ..., 31] + [31] * 16
    )]
