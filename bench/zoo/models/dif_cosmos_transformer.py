"""diffusers `CosmosTransformer3DModel`: the video diffusion transformer of NVIDIA Cosmos world foundation models
(Cosmos-1.0-Diffusion Video2World layout), one denoiser call as CosmosVideoToWorldPipeline makes it. The noisy
video latent is concatenated on channels with the condition mask (1 on the conditioning frames) and with the pixel
padding mask resized to the latent grid (torchvision nearest resize, repeated over batch and frames); a (1, 2, 2)
patchify is a reshape-permute plus a bias-free Linear. Positions: a 3D RoPE whose head dimension is split into
t / h / w bands (each its own NTK-scaled theta from rope_scale; the temporal band's positions rescaled by
base_fps / fps), plus a learnable factorised absolute embedding (t + h + w tables) that is L2-normalised with a
sqrt(numel ratio) factor and added at every block. The timestep goes through a sin-cos projection into both an
RMSNorm'ed embedding and a 2-Linear MLP giving 3 x hidden (the AdaLN-LoRA base). Each block has three AdaLN-Zero
sub-layers (self-attention with RoPE, cross-attention to the T5 text embeddings, GELU MLP), each with its own
low-rank modulation: SiLU -> Linear to adaln_lora_dim -> Linear to shift / scale / gate, plus the shared timestep
MLP output; attention uses per-head RMSNorm on q and k and no biases. The output AdaLN (the same LoRA form, shift
/ scale only) and a Linear unpatchify to the predicted latent.

Shrunk: 32 heads of 128 (hidden 4096) -> 4 heads of 24 (hidden 96; t / h / w rope bands 8 / 8 / 8 of the head
dim), 28 layers -> 2, adaln_lora_dim 256 -> 32, text_embed_dim 1024 -> 64 (12 tokens), max_size (128, 240, 240)
-> (16, 32, 32) (sizes the learnable tables), latent video 16 ch x 4 frames x 16 x 16 (128 px): 256 tokens.
Kept: 16 latent channels plus the condition-mask channel (in_channels 17), patch (1, 2, 2), mlp_ratio 4,
rope_scale (2, 1, 1), base fps 24 with fps 30 passed, concat_padding_mask, learnable extra positional embedding,
RMSNorm q/k, GELU MLP, eps 1e-6.
Inputs: hidden_states (2, 16, 4, 16, 16); timestep (2,) = 500; encoder_hidden_states (2, 12, 64); condition_mask
(2, 1, 4, 16, 16), 1 on the first latent frame; padding_mask (1, 1, 128, 128) zeros (the pipeline's).
Output: the predicted latent (2, 16, 4, 16, 16).
"""
import torch
from diffusers import CosmosTransformer3DModel
from torch import nn

batch_size = 2
num_frames = 4
latent_size = 16
text_len = 12
fps = 30


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CosmosTransformer3DModel(**config)
        # the learnable positional tables are zeros in the class (trained in the checkpoint): small fixed values
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            pe = self.model.learnable_pos_embed
            for p in (pe.pos_emb_t, pe.pos_emb_h, pe.pos_emb_w):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)

    def forward(self, hidden_states, timestep, encoder_hidden_states, condition_mask, padding_mask):
        return self.model(
            hidden_states=hidden_states,
            timestep=timestep,
            encoder_hidden_states=encoder_hidden_states,
            fps=fps,
            condition_mask=condition_mask,
            padding_mask=padding_mask,
            return_dict=False,
        )[0]


def get_inputs():
    hidden_states = torch.randn(batch_size, 16, num_frames, latent_size, latent_size)
    timestep = torch.full((batch_size,), 500.0)
    encoder_hidden_states = torch.randn(batch_size, text_len, 64)
    condition_mask = torch.zeros(batch_size, 1, num_frames, latent_size, latent_size)
    condition_mask[:, :, 0] = 1.0
    padding_mask = torch.zeros(1, 1, latent_size * 8, latent_size * 8)
    return [hidden_states, timestep, encoder_hidden_states, condition_mask, padding_mask]


def get_init_inputs():
    return [dict(
        in_channels=16 + 1,  # latent + condition mask (Video2World)
        out_channels=16,
        num_attention_heads=4,  # published 32
        attention_head_dim=24,  # published 128
        num_layers=2,  # published 28
        mlp_ratio=4.0,
        text_embed_dim=64,  # published 1024
        adaln_lora_dim=32,  # published 256
        max_size=(16, 32, 32),  # published (128, 240, 240)
        patch_size=(1, 2, 2),
        rope_scale=(2.0, 1.0, 1.0),
        concat_padding_mask=True,
        extra_pos_embed_type="learnable",
    )]
