"""Mimi neural audio codec (Kyutai, the speech tokenizer of Moshi: Defossez et al. 2024, "Moshi: a speech-text
foundation model for real-time dialogue"), after `kyutai/mimi`, shrunk.

MimiModel, full encode -> quantize -> decode pass:
- SEANet encoder: causal convs (constant padding) with one residual block (ELU, conv k3 to half the width, ELU,
  conv k1 back, identity shortcut) before each strided downsampling conv (ratios 4, 5, 6, 8: hop 960, 25 Hz at
  24 kHz), channels doubling at each stage, ELU and a final conv to the latent width;
- a streaming (causal, sliding-window) transformer over the 25 Hz frames: pre-LayerNorm, RoPE, MHA, GELU MLP, each
  residual branch multiplied by a learned LayerScale (init 0.01);
- a strided causal conv downsampling 25 Hz -> 12.5 Hz;
- a split residual vector quantizer: one semantic codebook (distilled from WavLM in training) and a 31-stage
  acoustic RVQ, both quantizing the same latents, each behind its own 1x1 input / output projections to a narrower
  codebook space, their decoded sums added;
- the mirror decoder: a depthwise transposed conv 12.5 -> 25 Hz, a second streaming transformer, and the SEANet
  decoder (transposed convs with ratios 8, 6, 5, 4, each followed by a residual block).
Shrunk: hidden_size 512 -> 64 (latent width and transformer width), num_filters 64 -> 8 (SEANet widths
64..1024 -> 8..128), 8 transformer layers -> 2 (each of the encoder and decoder transformers), 8 heads -> 4 (head_dim
64 -> 16), intermediate 2048 -> 256, codebook_dim = vector_quantization_hidden_dimension 256 -> 32,
upsample_groups 512 -> 64 (= hidden_size: the upsampler stays depthwise), sliding_window 250 (10 s at 25 Hz) -> 16
(0.64 s, so the window binds on the 32-step input). Kept: 32 quantizers (1 semantic + 31 acoustic), 2048 codewords
each, upsampling ratios (8, 6, 5, 4), frame rate 12.5 Hz, kernel sizes 7 / 3 / 3, compress 2.
Random init leaves every Mimi codebook at zero (embed_sum = 0): every frame would get code 0 and the decoder a constant
input. Model.__init__ stands in for trained codebooks as in the EnCodec entry of this zoo (see there).
Inputs: 1.28 s of raw 24 kHz mono audio (2, 1, 30720) and the feature extractor's padding_mask (2, 30720), the second
clip zero-padded over its last 7680 samples (0.32 s).
Outputs: the decoded audio `audio_values` (2, 1, 30720) and the codes `audio_codes` (2, 32 codebooks, 16 frames,
int64).
"""
import torch
from torch import nn
from transformers import MimiConfig, MimiModel

batch_size = 2
num_samples = 30720  # 1.28 s at 24 kHz: 32 encoder steps at 25 Hz, 16 code frames at 12.5 Hz
pad_samples = 7680


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MimiModel(config)
        # Mimi's random init leaves every codebook at zero. Stand in for trained codebooks the way codec training
        # starts them (k-means init on the first batch): encode a probe batch of random audio and, quantizer by
        # quantizer (semantic, acoustic), stage by stage, draw each stage's codewords from the frames it is given
        # (the projected latents, then the residuals left by the earlier stages), plus a little noise.
        with torch.no_grad():
            probe = torch.randn(8, config.audio_channels, 2 * num_samples) * 0.1
            latents = self.model.encoder(probe).latents  # (8, hidden_size, frames)
            quantizer = self.model.quantizer
            for rvq in (quantizer.semantic_residual_vector_quantizer, quantizer.acoustic_residual_vector_quantizer):
                residual = rvq.input_proj(latents) if rvq.input_proj is not None else latents
                for layer in rvq.layers:
                    frames = residual.transpose(1, 2).reshape(-1, residual.shape[1])
                    pick = torch.randint(0, frames.shape[0], (config.codebook_size,))
                    embed = frames[pick] + 0.5 * frames.std(0) * torch.randn(config.codebook_size, frames.shape[1])
                    codebook = layer.codebook
                    codebook.embed_sum.copy_(embed)  # cluster_usage stays 1: embed = embed_sum
                    codebook._embed = None  # drop the cached (zero) codebook
                    residual = residual - layer.decode(layer.encode(residual))

    def forward(self, input_values, padding_mask):
        out = self.model(input_values=input_values, padding_mask=padding_mask)
        return out.audio_values, out.audio_codes


def get_inputs():
    input_values = torch.randn(batch_size, 1, num_samples) * 0.1  # raw waveform in [-1, 1]
    padding_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    padding_mask[1, -pad_samples:] = 0
    input_values[1, :, -pad_samples:] = 0.0  # the feature extractor pads with zeros
    return [input_values, padding_mask]


def get_init_inputs():
    # kyutai/mimi config.json. Kept (all MimiConfig defaults): sampling_rate 24000, mono, upsampling_ratios
    # (8, 6, 5, 4), num_residual_layers 1, kernel 7 / last kernel 3 / residual kernel 3, dilation_growth_rate 2,
    # causal convs, constant padding, compress 2, trim_right_ratio 1.0, no conv shortcut, codebook_size 2048,
    # 32 quantizers (1 semantic), gelu, max_position_embeddings 8000, rope_theta 10000, norm_eps 1e-5, layer scale
    # 0.01, no attention bias, use_cache False; the published frame_rate 12.5 follows (24000 / (960 x 2)).
    return [MimiConfig(
        hidden_size=64,  # published 512
        num_filters=8,  # published 64
        codebook_dim=32,  # published 256
        vector_quantization_hidden_dimension=32,  # published 256
        upsample_groups=64,  # published 512
        num_hidden_layers=2,  # published 8
        intermediate_size=256,  # published 2048
        num_attention_heads=4,  # published 8
        num_key_value_heads=4,  # published 8
        head_dim=16,  # published 64
        sliding_window=16,  # published 250
    )]
