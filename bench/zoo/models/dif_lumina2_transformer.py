"""diffusers `Lumina2Transformer2DModel`: the Lumina-Image 2.0 Unified Next-DiT text-to-image flow transformer
(Qin et al. 2025, "Lumina-Image 2.0: A Unified and Efficient Image Generative Framework"), after
`Alpha-VLLM/Lumina-Image-2.0` `transformer/config.json`, shrunk.

Text and image tokens are processed as ONE sequence. The caption (Gemma-2 hidden states) is embedded by RMSNorm +
linear; the 16-channel latents are cut into 2 x 2 patches and embedded by a linear layer; the timestep (sinusoidal,
256 channels) by an MLP. 3-D RoPE (complex rotation, theta 10000) with per-head dims split (32, 32, 32) over
(sequence index, row, column): caption token i gets (i, 0, 0), every image patch gets (caption length, row, column),
where caption length counts only the unmasked caption tokens of that sample. Before the joint stack, two refiner
stacks run on each modality alone: the context refiner (caption tokens, caption mask, no timestep modulation) and the
noise refiner (image tokens, no mask, timestep-modulated). Then the unmasked caption tokens and the image tokens are
packed per sample into one sequence (the shorter sample zero-filled at the end and masked out) for the main blocks.
Block (sandwich norm): x + tanh(g_a) * RMSNorm(Attn(RMSNorm(x) * (1 + s_a))) and
x + tanh(g_m) * RMSNorm(FFN(RMSNorm(x) * (1 + s_m))), with the modulation (s_a, g_a, s_m, g_m) a linear of SiLU(temb);
attention is GQA without biases, with RMSNorm on q and k per head and the 3-D RoPE; the FFN is SwiGLU. Final: a
LayerNorm without affine scaled by (1 + linear(SiLU(temb))), a linear to patch pixels, unpatchify.
Shrunk: hidden 2304 -> 288, 24 heads / 8 kv heads -> 3 / 1 (GQA ratio 3 and head_dim 96 = 32 + 32 + 32 kept),
26 layers -> 2 (2 noise + 2 context refiner layers kept), cap_feat_dim 2304 (Gemma-2-2B) -> 64, caption 256 tokens
(the pipeline's max_sequence_length) -> 16, 128 x 128 latents (1024 px) -> 16 x 16 (128 px: an 8 x 8 patch grid).
The SwiGLU width is 4 x hidden rounded up to multiple_of 256 (kept): 9216 published, 1280 here.
Inputs: noisy latents (batch, 16, 16, 16); timestep (batch,) in [0, 1] (the pipeline passes 1 - t / 1000 for the
flow-matching scheduler's t, expanded to the batch; Lumina's t = 0 is noise); caption states (batch, 16, 64) and the
tokenizer's attention mask (batch, 16), the second prompt 4 tokens shorter (right-padded).
Output: `.sample` (batch, 16, 16, 16) (the velocity the pipeline negates).
"""
import torch
from diffusers import Lumina2Transformer2DModel
from torch import nn

batch_size = 2
in_channels = 16
latent_height, latent_width = 16, 16  # 128 x 128 px; published sample_size 128 (1024 px)
text_len = 16  # caption tokens; published max_sequence_length 256
cap_feat_dim = 64  # Gemma-2 width; published 2304


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Lumina2Transformer2DModel(**config)

    def forward(self, hidden_states, timestep, encoder_hidden_states, encoder_attention_mask):
        return self.model(
            hidden_states=hidden_states,
            timestep=timestep,
            encoder_hidden_states=encoder_hidden_states,
            encoder_attention_mask=encoder_attention_mask,
        ).sample


def get_inputs():
    hidden_states = torch.randn(batch_size, in_channels, latent_height, latent_width)
    t = torch.rand(()) * 1000  # the flow-matching scheduler's timestep (sigma * 1000)
    timestep = (1 - t / 1000).expand(batch_size)  # as the pipeline passes it
    encoder_hidden_states = torch.randn(batch_size, text_len, cap_feat_dim)
    encoder_attention_mask = torch.ones(batch_size, text_len, dtype=torch.long)
    encoder_attention_mask[1, -4:] = 0  # the second prompt is 4 tokens shorter
    return [hidden_states, timestep, encoder_hidden_states, encoder_attention_mask]


def get_init_inputs():
    # Alpha-VLLM/Lumina-Image-2.0 transformer/config.json. Kept: patch_size 2, in_channels 16 (out_channels null:
    # = in), 2 refiner layers, multiple_of 256, ffn_dim_multiplier null, norm_eps 1e-5, scaling_factor 1.0,
    # axes_dim_rope (32, 32, 32), axes_lens (300, 512, 512).
    return [dict(
        sample_size=latent_width,  # published 128
        hidden_size=288,  # published 2304
        num_layers=2,  # published 26
        num_attention_heads=3,  # published 24
        num_kv_heads=1,  # published 8
        cap_feat_dim=cap_feat_dim,  # published 2304
    )]
