"""diffusers `ChromaTransformer2DModel`: Chroma, a FLUX.1-schnell-derived rectified-flow transformer with the
per-block modulation MLPs pruned away. FLUX's adaLN linears (one per block, fed by timestep + pooled CLIP) are
replaced by a single shared "distilled guidance" approximator: a sinusoidal embedding of the timestep (and of a
zero guidance) is concatenated with a fixed sinusoidal embedding of each modulation slot index, and the sequence of
3 * single + 12 * double + 2 slots goes through an MLP stack (input linear, residual RMSNorm + SiLU-MLP layers,
output linear) that emits every shift / scale / gate vector of the network at once. No CLIP pooled input. The rest
is FLUX: double-stream MM-DiT blocks (separate image / text weights, joint attention with RMS QK-norm), then
single-stream blocks (fused attention + GELU(tanh) MLP), 3-axis RoPE from the text / image position ids, and a
pruned AdaLayerNormContinuous before the output projection. Unlike FLUX, the T5 padding is masked out in every
attention (all text tokens after the first pad token).

Architecture after lodestones/Chroma (the diffusers defaults, = lodestones/Chroma1-HD `transformer/config.json`),
shrunk: 24 heads x 128 dims (3072 hidden) -> 2 heads x 32 dims (64 hidden), rotary axes (16, 56, 56) -> (4, 14, 14),
19 double + 38 single blocks -> 2 + 2, joint_attention_dim (T5-v1.1-XXL width) 4096 -> 64, approximator_hidden_dim
5120 -> 128, approximator_layers 5 -> 2, T5 max_sequence_length 512 -> 16 tokens. Kept: patch_size 1, in_channels
64 (16 latent channels packed 2 x 2), approximator_num_channels 64.
Inputs as ChromaPipeline builds them for a 128 x 128 image: packed latents (2, 64, 64) (the 16 x 16 VAE latent as
8 x 8 tokens), T5 states (2, 16, 64), timestep (2,) already divided by 1000, img_ids (64, 3), txt_ids (16, 3), and
the joint attention mask (2, 16 + 64): text tokens up to and including the first pad token, then all image tokens.
The mask is passed boolean (the pipeline of this diffusers version casts it to the embeddings' float dtype, where
SDPA reads 0 / 1 as an additive bias instead of a mask: huggingface/diffusers#12116).
Output: `.sample` (2, 64, 64): the predicted flow velocity.
"""
import torch
from torch import nn
from diffusers import ChromaTransformer2DModel

batch_size = 2
latent_hw = 16  # 128 px / 8 (VAE)
num_image_tokens = (latent_hw // 2) ** 2  # 64
text_len = 16  # T5 max_sequence_length; published 512
joint_attention_dim = 64  # published 4096 (T5-v1.1-XXL)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ChromaTransformer2DModel(**config)

    def forward(self, hidden_states, encoder_hidden_states, timestep, img_ids, txt_ids, attention_mask):
        return self.model(
            hidden_states=hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            timestep=timestep,
            img_ids=img_ids,
            txt_ids=txt_ids,
            attention_mask=attention_mask,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, num_image_tokens, 64)
    encoder_hidden_states = torch.randn(batch_size, text_len, joint_attention_dim)
    timestep = torch.rand(batch_size)  # sigma in (0, 1], as the pipeline passes t / 1000
    # ChromaPipeline._prepare_latent_image_ids: (0, row, col) per packed token
    img_ids = torch.zeros(latent_hw // 2, latent_hw // 2, 3)
    img_ids[..., 1] = torch.arange(latent_hw // 2)[:, None]
    img_ids[..., 2] = torch.arange(latent_hw // 2)[None, :]
    img_ids = img_ids.reshape(num_image_tokens, 3)
    txt_ids = torch.zeros(text_len, 3)
    # prompts of 10 and 5 T5 tokens: keep the real tokens and the first pad token, mask the rest; image tokens all kept
    prompt_lengths = torch.tensor([10, 5])
    text_mask = torch.arange(text_len)[None, :] <= prompt_lengths[:, None]
    attention_mask = torch.cat([text_mask, torch.ones(batch_size, num_image_tokens, dtype=torch.bool)], dim=1)
    return [hidden_states, encoder_hidden_states, timestep, img_ids, txt_ids, attention_mask]


def get_init_inputs():
    return [dict(
        patch_size=1,
        in_channels=64,
        out_channels=None,
        num_layers=2,  # published 19
        num_single_layers=2,  # published 38
        attention_head_dim=32,  # published 128
        num_attention_heads=2,  # published 24
        joint_attention_dim=joint_attention_dim,  # published 4096
        axes_dims_rope=(4, 14, 14),  # published (16, 56, 56); sums to the head dim
        approximator_num_channels=64,
        approximator_hidden_dim=128,  # published 5120
        approximator_layers=2,  # published 5
    )]
