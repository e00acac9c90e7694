"""diffusers `AutoencoderSAME`: SAME, the "Semantically-Aligned Music Encoder" waveform autoencoder of Stable Audio 3
(Stability AI, 2026, arXiv 2605.17991; `stabilityai/SAME-S`), shrunk. Encode -> decode of a stereo waveform. Unlike
the convolutional audio VAEs (Oobleck, DAC, EnCodec, Mimi) it has no convolutions in its resampling path: it is a
pure transformer autoencoder.
  - Patchify: non-overlapping 256-sample patches become channels (stereo x 256 = 512 channels per frame), no weights.
  - Encoder Transformer Resampling Block (TRB), stride S: a weight-normalised 1 x 1 conv maps the channels; the frame
    sequence is cut into segments of S frames, ONE learnable output token is appended to every segment, the
    flattened sequence (S + 1 tokens per segment) runs through transformer layers under a band mask (each token sees
    sliding_window x (S + 1) tokens on either side, i.e. its own and the neighbouring segments), and only the output
    tokens are kept: downsampling by S is done by attention into learned query slots.
  - Transformer layer: DynamicTanh (DyT, gamma * tanh(alpha x) + beta) instead of LayerNorm before attention and
    FFN; differential attention (two softmax maps from (q1, k1) and (q2, k2) over the same v, subtracted); DyT
    q / k norms; partial RoPE over half of each head; SwiGLU FFN (ff_mult 3).
  - Linear projection to the latent width, then a soft-norm bottleneck: z = (x * scale + bias) / running_std.
  - Decoder mirrors it: z * running_std, linear projection up, a decoder TRB in which each latent seeds a segment
    followed by S (broadcast) learnable output tokens, the S outputs are kept (upsampling by S), 1 x 1 conv, unpatch.

Published SAME-S: patch 256, encoder_channels 128 x c_mult 6 (TRB width 768), one TRB of stride 16 and depth 6, latent
256, head dim 64, ff_mult 3, sliding_window 1, differential attention on, no sinusoidal FFN gates (108M parameters,
4096x downsampling: 10.8 latents/s at 44.1 kHz). Shrunk: encoder_channels 128 -> 16, c_mult 6 -> 4 (TRB width 768 ->
64), depth 6 -> 2, latent 256 -> 32, head dim 64 -> 16 (4 heads); the patch size, stride 16 (so 4096x downsampling),
window, ff_mult and differential attention are kept.
Every attention output projection and FFN output projection is zero-initialised ("zero-init branches"), which makes a
freshly built model's transformers identities and its latents independent of the audio; as a stand-in for trained
weights they get PyTorch's default Linear init here.
Input: a stereo waveform (2, 2, 32768) (8 latent frames, 0.74 s at 44.1 kHz). Output: the reconstruction (2, 2, 32768).
"""
import torch
from diffusers import AutoencoderSAME
from torch import nn

batch_size = 2
audio_channels = 2
num_samples = 32768  # 8 latents x 4096


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderSAME(**config)
        for name, module in self.model.named_modules():
            if name.endswith("attn.to_out") or name.endswith("ff.proj_out"):
                module.reset_parameters()

    def forward(self, audio):
        latents = self.model.encode(audio).latents
        return self.model.decode(latents).sample


def get_inputs():
    return [(0.1 * torch.randn(batch_size, audio_channels, num_samples)).clamp(-1.0, 1.0)]


def get_init_inputs():
    # stabilityai/SAME-S (the AutoencoderSAME defaults), shrunk where commented.
    return [dict(
        audio_channels=audio_channels,
        patch_size=256,
        encoder_channels=16,  # published 128
        encoder_c_mults=(4,),  # published (6,)
        encoder_strides=(16,),
        encoder_transformer_depths=(2,),  # published (6,)
        latent_dim=32,  # published 256
        use_differential_attention=True,
        dim_heads=16,  # published 64
        ff_mult=3,
        sliding_window=1,
        encoder_sinusoidal_blocks=(0,),
        decoder_sinusoidal_blocks=(0,),
        sampling_rate=44100,
    )]
