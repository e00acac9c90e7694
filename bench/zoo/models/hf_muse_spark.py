"""Muse Spark Open omni model (`meta-models/Muse-Spark-Open-816B-A42B`): a sparse-MoE decoder LM reading text,
images and raw audio in one prompt; one prefill forward. Text decoder: RMS-normalised token embeddings; every layer
input-norm (centred RMSNorm, weight + 1) -> attention -> weight-free RMSNorm -> learned residual gate
(alpha * residual + beta * branch with beta = sigmoid(g / 0.3), alpha = sqrt(sigmoid(-g / 0.3) (1 + beta))) ->
centred RMSNorm -> MoE -> "input-scaled" RMSNorm (scale, then normalise) -> residual gate. Attention: scale-free
q/k RMSNorm with the queries multiplied by qk_scale_factor 5.47, GQA, RoPE on the sliding-window layers and NoPE on
every 4th (full-attention) layer counted back from the last, an output RMSNorm and a sigmoid gate from the layer input
before o_proj. MoE: sigmoid router (fp32 logits x output_multiplier, top-k with a selection bias, renormalised) over
experts that run at a pooled width: a Linear pools hidden -> moe_hidden, a centred RMSNorm, SwiGLU experts each
followed by an input-scaled RMSNorm, and a Linear back. Logits: lm_head, x output_multiplier, tanh soft-cap 20.
Vision: Qwen2.5-VL-style patch encoder (14 x 14 x 2-frame patches, bilinearly interpolated learned position table,
2D axial RoPE, window attention in 4 x 4-patch windows with every 4th and the last layer global), 2 x 2 pixel-shuffle
merge, a 2-layer GELU adapter and a Linear, then a weight-free RMSNorm. Audio: a causal convolutional pyramid on the
24 kHz waveform (4 stages, each a patch-Linear + RMSNorm downsampling by 16 / 6 / 5 / 4 and causal depthwise-conv +
MLP blocks: one token per 1920 samples = 80 ms) projected straight to the LM width. Image and audio embeddings
replace their placeholder tokens (audio only where input_values_mask covers it).

MuseSparkForConditionalGeneration (sdpa). Output: LM logits (2, 29, 1024).
Shrunk: text hidden 8192 -> 64, 62 layers -> 2 (layer 0 sliding with RoPE, layer 1 full NoPE), 128 heads / 16 kv ->
4 / 2, head_dim 64 -> 16, sliding window 2048 -> 8, 256 experts -> 8 (top-8 -> top-2), moe_hidden 4096 -> 32,
moe_intermediate 4096 -> 32, output_multiplier 1/sqrt(8192/256) -> 1/sqrt(64/256) = 2 (the same rule), vocab 202048
-> 1024 (placeholder ids moved below 1024); vision hidden 1536 -> 64, 50 layers -> 2 (window, full), 16 heads -> 4,
intermediate 8960 -> 128, position table 32 x 32 -> 4 x 4 (so windows are 56 px), out_hidden 6144 -> 256, projector
4096 -> 64; audio hidden sizes (256, 512, 1024, 2048) -> (8, 16, 32, 64), depths (2, 2, 2, 2) -> (1, 1, 1, 1),
out 8192 -> 64.
Kept: qk_scale_factor 5.473, final soft-cap 20, residual-gate temperature 0.3, rope_theta 5e5, NoPE every 4th layer
from the end, post_norm_eps 1e-8, patch 14, temporal patch 2, merge 2, audio patch sizes (16, 6, 5, 4), conv kernel 7.
Inputs: input_ids (2, 29): bos, text, `<image_start>` + 4 (sample 0, 56 x 56 image) / 6 (sample 1, 56 x 84)
`<patch>` + `<image_end>`, text, `<audio_start>` + 8 / 5 `<audio>` + `<audio_end>`, text; the second prompt left-padded
by 1; attention_mask; pixel_values (40, 1176) patches of ImageNet-standard-normalised images (row-major, each patch
laid out (temporal, channel, y, x)) and image_grid_thw [[1, 4, 4], [1, 4, 6]]; input_values (2, 15360) waveforms in
[-1, 1], the second 9600 samples long and zero-padded, with input_values_mask.
"""
import torch
from torch import nn
from transformers import (
    MuseSparkAudioConfig,
    MuseSparkConfig,
    MuseSparkForConditionalGeneration,
    MuseSparkTextConfig,
    MuseSparkVisionConfig,
)

batch_size = 2
patch_size = 14
temporal_patch = 2
merge_size = 2
image_sizes = [(56, 56), (56, 84)]  # (height, width) of sample 0 / sample 1
samples_per_token = 16 * 6 * 5 * 4  # 1920
audio_tokens = [8, 5]
vocab_size = 1024
bos_token_id = 1
pad_token_id = 0
image_token_id = 1000
video_token_id = 999
audio_token_id = 998
image_start_id, image_end_id = 997, 996
audio_start_id, audio_end_id = 995, 994
text_lens = (5, 3, 4)  # text before the image, between image and audio, after the audio


def prompt_length(b):
    h, w = image_sizes[b % 2]
    n_img = (h // patch_size) * (w // patch_size) // merge_size**2
    return 1 + sum(text_lens) + (n_img + 2) + (audio_tokens[b % 2] + 2)


seq_len = max(prompt_length(b) for b in range(2))  # 29


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MuseSparkForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, image_grid_thw, input_values, input_values_mask):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            pixel_values=pixel_values,
            image_grid_thw=image_grid_thw,
            input_values=input_values,
            input_values_mask=input_values_mask,
        ).logits


def patchify(image):
    """MuseGlimmerImageProcessor.patchify: row-major patches, each flattened as (temporal, channel, y, x)."""
    c, h, w = image.shape
    gh, gw = h // patch_size, w // patch_size
    patches = image.view(c, gh, patch_size, gw, patch_size).permute(1, 3, 0, 2, 4)
    patches = patches.unsqueeze(2).expand(-1, -1, temporal_patch, -1, -1, -1)
    return patches.reshape(gh * gw, temporal_patch * c * patch_size * patch_size), [1, gh, gw]


def get_inputs():
    max_samples = max(audio_tokens[b % 2] for b in range(batch_size)) * samples_per_token
    input_ids = torch.full((batch_size, seq_len), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    input_values = torch.zeros(batch_size, max_samples)
    input_values_mask = torch.zeros(batch_size, max_samples, dtype=torch.long)
    pixel_values, grids = [], []
    for b in range(batch_size):
        h, w = image_sizes[b % 2]
        image = (torch.rand(3, h, w) - 0.5) / 0.5  # IMAGENET_STANDARD mean / std 0.5
        patches, grid = patchify(image)
        pixel_values.append(patches)
        grids.append(grid)
        n_img = grid[1] * grid[2] // merge_size**2
        n_aud = audio_tokens[b % 2]
        n_samples = n_aud * samples_per_token
        t = torch.linspace(0, n_samples / 24000, n_samples)
        input_values[b, :n_samples] = 0.3 * torch.sin(2 * torch.pi * 220 * t) + 0.05 * torch.randn(n_samples)
        input_values_mask[b, :n_samples] = 1

        def text(n):
            return torch.randint(2, 990, (n,)).tolist()

        ids = ([bos_token_id] + text(text_lens[0]) + [image_start_id] + [image_token_id] * n_img + [image_end_id]
               + text(text_lens[1]) + [audio_start_id] + [audio_token_id] * n_aud + [audio_end_id] + text(text_lens[2]))
        input_ids[b, seq_len - len(ids):] = torch.tensor(ids)  # left padding
        attention_mask[b, seq_len - len(ids):] = 1
    return [input_ids, attention_mask, torch.cat(pixel_values), torch.tensor(grids), input_values.clamp(-1, 1),
            input_values_mask]


def get_init_inputs():
    # meta-models/Muse-Spark-Open-816B-A42B (the MuseSpark*Config defaults). Kept: qk_scale_factor 5.4730064863875,
    # final_logit_softcapping 20, residual_gate_temperature 0.3, rope_theta 5e5 with NoPE every 4th layer from the end,
    # post_norm_eps 1e-8, rms_norm_eps 1e-5, silu / gelu, patch 14, temporal patch 2, merge 2, audio patch sizes
    # (16, 6, 5, 4), audio conv kernel 7.
    text_config = MuseSparkTextConfig(
        vocab_size=vocab_size,  # published 202048
        hidden_size=64,  # published 8192
        intermediate_size=128,  # published 16384 (dense MLP; every layer is sparse)
        num_hidden_layers=2,  # published 62
        num_attention_heads=4,  # published 128
        num_key_value_heads=2,  # published 16
        head_dim=16,  # published 64
        max_position_embeddings=256,
        sliding_window=8,  # published 2048
        output_multiplier=(64 / 256) ** -0.5,  # published 1/sqrt(8192 / 256)
        moe_intermediate_size=32,  # published 4096
        num_local_experts=8,  # published 256
        num_experts_per_tok=2,  # published 8
        moe_hidden_size=32,  # published 4096
        bos_token_id=bos_token_id,
        eos_token_id=2,
        pad_token_id=pad_token_id,
    )
    vision_config = MuseSparkVisionConfig(
        patch_size=patch_size,
        pos_emb_height=4,  # published 32
        pos_emb_width=4,  # published 32
        max_position_embeddings=16,  # = 4 x 4
        num_attention_heads=4,  # published 16
        num_hidden_layers=2,  # published 50
        hidden_size=64,  # published 1536
        intermediate_size=128,  # published 8960
        patch_temporal=temporal_patch,
        merge_size=merge_size,
    )
    audio_config = MuseSparkAudioConfig(
        patch_sizes=[16, 6, 5, 4],
        hidden_sizes=[8, 16, 32, 64],  # published [256, 512, 1024, 2048]
        depths=[1, 1, 1, 1],  # published [2, 2, 2, 2]
        num_hidden_layers=4,
        conv_kernel_size=7,
        out_hidden_size=64,  # = text hidden (published 8192)
    )
    return [MuseSparkConfig(
        text_config=text_config,
        vision_config=vision_config,
        audio_config=audio_config,
        image_token_id=image_token_id,  # published 200092
        video_token_id=video_token_id,  # published 200091
        audio_token_id=audio_token_id,  # published 200038
        out_hidden_size=64 * merge_size**2,  # published 6144
        projector_hidden_size=64,  # published 4096
    )]
