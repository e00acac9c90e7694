"""Moshi speech-text foundation model (Kyutai 2024, "Moshi: a speech-text foundation model for real-time dialogue",
`kmhf/hf-moshiko`, MoshiForConditionalGeneration), one teacher-forced step of its two-level "RQ-Transformer",
shrunk. Moshi models two audio streams (its own voice and the user's), each as 8 codebooks of Mimi tokens at
12.5 Hz, plus a time-aligned text stream ("inner monologue"):
  - temporal transformer (the 7B "Helium" decoder): at every frame the input embedding is the SUM of the text-token
    embedding and 16 audio-token embeddings (one table per codebook per stream, each with an extra "no token"
    entry); RoPE, RMSNorm, SiLU-gated MLP whose fc1 packs gate and up halves; causal attention (the published
    3000-frame sliding window only bounds the KV cache in this implementation); text logits from the LM head;
  - depth transformer: for every frame, a small causal transformer runs over the codebook axis (length 8: the
    frame's text token, then audio codebooks 0..6, each through its own embedding table) conditioned on the
    temporal transformer's hidden state of that frame through a per-position input projection. Its distinctive
    feature is that EVERY linear in it (q / k / v / o, the gated MLP, the input projections and the 8 LM heads)
    is a "flexible linear": a stacked weight (num_codebooks, out, in), so position i along the codebook axis is
    multiplied by its own matrix (index_select + batched matmul); no RoPE; outputs per-codebook audio logits.
This file runs both levels as the training forward does (teacher forcing): the temporal transformer over the
frames, then the depth transformer over (batch * frames) sequences of (text token, moshi codebooks 0..6), fed
the given tokens (already in Moshi's delayed layout; the model's delay-pattern builder is data preparation).
Shrunk (from kyutai's published Moshi config, = the MoshiConfig defaults): temporal hidden 4096 -> 64, 32 layers
-> 2, 32 heads -> 4, ffn_dim 22528 -> 256 (gate + up packed: 2 x 128), text vocab 32000 -> 1000; depth hidden
1024 -> 64, 6 layers -> 2, 16 heads -> 4, ffn_dim 5632 -> 128; audio codebook size 2048 -> 256; 8 codebooks per
stream and depth context 8 kept. The Mimi audio codec that Moshi embeds (for
waveform inputs, see hf_mimi) is built tiny to satisfy the config and then dropped: this file feeds codes.
Stand-in for trained weights: the flexible linears are initialised by the library from N(0, 1) (no fan-in
scaling), which makes the depth logits blow up (std ~4e3 at this size); they are redrawn from N(0, 1 / fan_in).
Inputs: input_ids (2, 24) text tokens, moshi_audio_codes (2, 8, 24), user_audio_codes (2, 8, 24) (24 frames ~ 2 s).
Outputs: text logits (2, 24, 1000), audio logits (48, 8, 256) (batch * frames, codebooks, codebook size).
"""
import math

import torch
from torch import nn
from transformers import MimiConfig, MoshiConfig, MoshiDepthConfig, MoshiForConditionalGeneration
from transformers.models.moshi.modeling_moshi import MoshiFlexibleLinear

batch_size = 2
num_frames = 24
num_codebooks = 8
vocab_size = 1000
audio_vocab_size = 256


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MoshiForConditionalGeneration(config)
        self.model.audio_encoder = None  # only used for waveform inputs; codes are given
        with torch.no_grad():
            for module in self.model.modules():
                if isinstance(module, MoshiFlexibleLinear):
                    nn.init.normal_(module.weight, std=1.0 / math.sqrt(module.weight.shape[-1]))

    def forward(self, input_ids, moshi_audio_codes, user_audio_codes):
        out = self.model(
            input_ids=input_ids,
            moshi_audio_codes=moshi_audio_codes,
            user_audio_codes=user_audio_codes,
        )
        text_logits = out.logits
        hidden = out.last_hidden_state  # (batch, frames, hidden)
        b, t, h = hidden.shape
        # depth transformer, teacher-forced: per frame, (text token, moshi codebooks 0..n-2)
        depth_input_ids = torch.cat(
            [input_ids.reshape(-1, 1), moshi_audio_codes.transpose(1, 2).reshape(b * t, -1)[:, :-1]], dim=1
        )
        audio_logits = self.model.depth_decoder(
            input_ids=depth_input_ids,
            last_hidden_state=hidden.reshape(b * t, 1, h),
        ).logits
        return text_logits, audio_logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, num_frames))
    moshi_audio_codes = torch.randint(0, audio_vocab_size, (batch_size, num_codebooks, num_frames))
    user_audio_codes = torch.randint(0, audio_vocab_size, (batch_size, num_codebooks, num_frames))
    return [input_ids, moshi_audio_codes, user_audio_codes]


def get_init_inputs():
    # Kept: silu gating, RMSNorm eps 1e-8, RoPE theta 1e4 (temporal only), 8 codebooks, MHA (kv heads = heads),
    # untied LM head.
    audio_encoder_config = MimiConfig(  # tiny placeholder, dropped in Model.__init__
        hidden_size=32, num_filters=8, codebook_size=audio_vocab_size, codebook_dim=16, num_quantizers=num_codebooks,
        vector_quantization_hidden_dimension=16, upsample_groups=32, num_hidden_layers=1, intermediate_size=64,
        num_attention_heads=2, num_key_value_heads=2,
    )
    depth_decoder_config = MoshiDepthConfig(
        hidden_size=64,  # published 1024
        num_hidden_layers=2,  # published 6
        num_attention_heads=4,  # published 16
        ffn_dim=128,  # published 5632
        sliding_window=8,
        max_position_embeddings=9,
        num_codebooks=num_codebooks,
        input_size=64,  # = temporal hidden size
        vocab_size=vocab_size,
        audio_vocab_size=audio_vocab_size,
    )
    return [MoshiConfig(
        vocab_size=vocab_size,  # published 32000
        hidden_size=64,  # published 4096
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        ffn_dim=256,  # published 22528
        sliding_window=3000,
        max_position_embeddings=3000,
        num_codebooks=num_codebooks,
        audio_vocab_size=audio_vocab_size,  # published 2048
        audio_encoder_config=audio_encoder_config.to_dict(),
        depth_decoder_config=depth_decoder_config.to_dict(),
    )]
