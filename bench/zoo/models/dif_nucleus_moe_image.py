"""diffusers `NucleusMoEImageTransformer2DModel`: the Nucleus-Image flow-matching DiT, a single-stream image
transformer whose feed-forward layers are expert-choice Mixture-of-Experts. One forward = one velocity prediction as
NucleusMoEImagePipeline calls it. Packed 2 x 2 latent patches (64 channels) are embedded by a Linear; the text
condition (hidden states of a Qwen-VL text encoder, RMS-normalised once) is re-projected in every block and used
only as extra keys / values: image queries attend to [image; text] keys (GQA, per-head RMS q/k-norm and RMS-normed
text keys, complex 3-axis RoPE with centred ("scale_rope") image positions and text positions placed after the image
extent, a boolean key-padding mask where the prompts have padding); the text stream is never updated. Blocks
modulate with (1 + scale) after a parameter-free LayerNorm and add tanh(gate)-gated residuals, the gates clamped to
[-2, 2], from a RMS-normalised timestep embedding. The first three and the last blocks use a dense SwiGLU; the others
a MoE layer with a shared SwiGLU expert plus routed SwiGLU experts under expert-choice routing: the router sees
[timestep embedding, un-modulated normed state], softmax over experts, each expert takes its top
ceil(capacity_factor * seq / experts) tokens of the sample, the gates are renormalised per token over the experts that
picked it and scaled by route_scale 2.5, and the expert outputs are scatter-added onto the shared expert's. A
continuous AdaLayerNorm and a Linear give the packed output.

Shrunk: 24 layers -> 5 (dense, dense, dense, MoE, dense: the published "leave_first_three_and_last_block_dense"
layout), 16 heads of 128 -> 4 of 16 (axes_dims_rope (16, 56, 56) -> (4, 6, 6)), joint_attention_dim 3584 -> 64,
128 experts -> 8 with capacity factor 8 -> 2 (so that each token is still picked by a small fraction of the experts
on average: 8 / 128 published, 2 / 8 here), moe_intermediate 1344 -> 64, latents 128 x 128 (1024 px) -> 32 x 32
(256 tokens).
The routed experts' packed weights (torch.empty in the class, filled by the checkpoint) are drawn from a
fan-in-scaled normal.
Kept: patch 2, in_channels 64 (16 latent channels packed 2 x 2), out_channels 16, mlp_ratio 4, softmax routing,
route_scale 2.5, rope theta 10000 with scale_rope, norm eps 1e-6.
Inputs: packed latents (2, 256, 64); prompt hidden states (2, 24, 64) (padded to a multiple of 8 as the pipeline
does) with a mask keeping 24 and 17 tokens; the timestep as the pipeline passes it, t / 1000 in (0, 1].
Output: the packed velocity (2, 256, 64).
"""
import torch
from diffusers import NucleusMoEImageTransformer2DModel
from torch import nn

batch_size = 2
latent_hw = 32  # 256 px / 8
num_image_tokens = (latent_hw // 2) ** 2  # 256
text_len = 24
text_lens = [24, 17]
joint_attention_dim = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = NucleusMoEImageTransformer2DModel(**config)
        # SwiGLUExperts allocates its packed weights with torch.empty and leaves them to the checkpoint: draw them
        # here (fan-in-scaled normal, as nn.Linear's scale) so that the routed experts compute something defined.
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for module in self.model.modules():
                if type(module).__name__ == "SwiGLUExperts":
                    module.gate_up_proj.normal_(0.0, module.hidden_size ** -0.5, generator=gen)
                    module.down_proj.normal_(0.0, module.moe_intermediate_dim ** -0.5, generator=gen)

    def forward(self, hidden_states, encoder_hidden_states, encoder_hidden_states_mask, timestep):
        # NucleusMoEImagePipeline: one (frame, height, width) grid of packed tokens per sample
        img_shapes = [(1, latent_hw // 2, latent_hw // 2)] * hidden_states.shape[0]
        return self.model(
            hidden_states=hidden_states,
            img_shapes=img_shapes,
            encoder_hidden_states=encoder_hidden_states,
            encoder_hidden_states_mask=encoder_hidden_states_mask,
            timestep=timestep,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, num_image_tokens, 64)
    encoder_hidden_states = torch.randn(batch_size, text_len, joint_attention_dim)
    encoder_hidden_states_mask = torch.zeros(batch_size, text_len, dtype=torch.long)
    for b in range(batch_size):
        n = text_lens[b % len(text_lens)]
        encoder_hidden_states_mask[b, :n] = 1
        encoder_hidden_states[b, n:] = 0
    timestep = torch.tensor([0.9, 0.35]).repeat(batch_size)[:batch_size]  # sigma = t / 1000
    return [hidden_states, encoder_hidden_states, encoder_hidden_states_mask, timestep]


def get_init_inputs():
    # The NucleusMoEImageTransformer2DModel defaults (the Nucleus-Image release). Kept: patch_size 2, in_channels 64,
    # mlp_ratio 4, dense_moe_strategy "leave_first_three_and_last_block_dense", softmax routing, route_scale 2.5.
    return [dict(
        patch_size=2,
        in_channels=64,
        out_channels=16,
        num_layers=5,  # published 24
        attention_head_dim=16,  # published 128
        num_attention_heads=4,  # published 16
        num_key_value_heads=2,  # published: = heads (no GQA); GQA exercised here
        joint_attention_dim=joint_attention_dim,  # published 3584
        axes_dims_rope=(4, 6, 6),  # published (16, 56, 56)
        mlp_ratio=4.0,
        moe_enabled=True,
        dense_moe_strategy="leave_first_three_and_last_block_dense",
        num_experts=8,  # published 128
        moe_intermediate_dim=64,  # published 1344
        capacity_factors=2.0,  # published 8.0
        use_sigmoid=False,
        route_scale=2.5,
    )]
