"""Granite Speech speech-to-text LLM (IBM, `ibm-granite/granite-speech-3.3-2b`): a conformer CTC encoder, a windowed
Q-Former projector and a Granite decoder LM, as one prefill forward of an ASR prompt. The log-mel features (80 bins,
two frames stacked per step: 160 inputs) pass through a Linear and conformer blocks (half-step SiLU FFN, block-local
self-attention over fixed context_size chunks (the last chunk padded and masked) with Shaw relative-position
logits from a learned (2 max_pos_emb + 1)-row table added as the sdpa mask, a GLU / depthwise-conv / BatchNorm / SiLU
conv module, half-step FFN, post LayerNorm); after the middle block the encoder adds back a projection of the softmax
of its intermediate CTC logits (self-conditioned CTC). The projector cuts the encoder output into windows of 15
frames and lets 3 learned queries per window cross-attend to it through a BLIP-2 Q-Former (5x temporal
downsampling), then a Linear into the LM width. The projected audio embeddings (only the valid ones, selected by
input_features_mask) replace the `<|audio|>` placeholders of the prompt, and the Granite decoder (RoPE, GQA, SwiGLU,
muP multipliers on the embeddings, attention, residuals and logits) returns next-token logits.

GraniteSpeechForConditionalGeneration (sdpa; has_lora_adapter off: the released LoRA adapter is a peft add-on, not
part of the module tree).
Shrunk (from the GraniteSpeechEncoderConfig / Blip2QFormer defaults and the Granite-3.3-2B text config): encoder
hidden 1024 -> 64, 10 conformer blocks -> 2 (the CTC feedback after block 1), 8 heads -> 4
(dim_head 128 -> 16), context_size 200 -> 16 and max_pos_emb 512 -> 32 (so 60 encoder frames make 4 blocks, the last
one padded); Q-Former hidden 1024 -> 64, 16 heads -> 4, intermediate 4096 -> 128; LM hidden 2048 -> 64, 40 layers ->
2, 32 heads / 8 kv -> 4 / 2, intermediate 8192 -> 128, vocab 49160 -> 1024 (audio token 49155 -> 1000).
Kept: input_dim 160, conv kernel 15, conv expansion 2, feedforward_mult 4, CTC output_dim 42, window 15, downsample
rate 5, 2 Q-Former layers with cross-attention in every layer, Granite multipliers (embedding 12, attention 1/64,
residual 0.22, logits scaling 8), tied embeddings.
Inputs: input_features (2, 60, 160): stacked log-mel features as GraniteSpeechFeatureExtractor makes them (values in
about [-1, 1]), the second utterance 42 frames long and padded with its silence floor; input_ids (2, 22) with 12 and
9 `<|audio|>` tokens (the second prompt left-padded by 3, pad 0); input_features_mask (2, 12) keeping 12 and 9
projected audio frames; attention_mask. Output: LM logits (2, 22, 1024).
"""
import torch
from torch import nn
from transformers import (
    Blip2QFormerConfig,
    GraniteConfig,
    GraniteSpeechConfig,
    GraniteSpeechEncoderConfig,
    GraniteSpeechForConditionalGeneration,
)

batch_size = 2
num_frames = 60  # encoder frames (stacked mel pairs)
frame_lens = [60, 42]
window_size = 15
downsample_rate = 5
vocab_size = 1024
audio_token_id = 1000
pad_token_id = 0
prefix_len, suffix_len = 4, 6


def num_audio_tokens(n_frames):
    """GraniteSpeechFeatureExtractor._get_num_audio_features (from the encoder length)."""
    return -(-n_frames // window_size) * (window_size // downsample_rate)


max_audio_tokens = num_audio_tokens(num_frames)  # 12
seq_len = prefix_len + max_audio_tokens + suffix_len  # 22


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GraniteSpeechForConditionalGeneration(config)

    def forward(self, input_ids, input_features, input_features_mask, attention_mask):
        return self.model(
            input_ids=input_ids,
            input_features=input_features,
            input_features_mask=input_features_mask,
            attention_mask=attention_mask,
        ).logits


def get_inputs():
    input_features = torch.empty(batch_size, num_frames, 160)
    input_features_mask = torch.zeros(batch_size, max_audio_tokens, dtype=torch.bool)
    input_ids = torch.full((batch_size, seq_len), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for b in range(batch_size):
        n = frame_lens[b % len(frame_lens)]
        # log10 mel clipped to (max - 8), then / 4 + 1: speech within about [-1, 1], the padding at the floor
        logmel = torch.rand(num_frames, 160) * 2.0 - 1.0
        floor = float(logmel[:n].amax()) - 2.0
        input_features[b] = torch.maximum(logmel, torch.tensor(floor))
        input_features[b, n:] = floor
        n_audio = num_audio_tokens(n)
        input_features_mask[b, :n_audio] = True
        start = seq_len - (prefix_len + n_audio + suffix_len)  # left padding
        prompt = torch.randint(1, audio_token_id, (prefix_len + n_audio + suffix_len,))
        prompt[prefix_len:prefix_len + n_audio] = audio_token_id
        input_ids[b, start:] = prompt
        attention_mask[b, start:] = 1
    return [input_ids, input_features, input_features_mask, attention_mask]


def get_init_inputs():
    # ibm-granite/granite-speech-3.3-2b (GraniteSpeechConfig defaults for the encoder and projector layout). Kept:
    # input_dim 160, conv_kernel_size 15, conv_expansion_factor 2, feedforward_mult 4, output_dim 42, window_size 15,
    # downsample_rate 5, Q-Former with 2 layers and cross-attention every layer, Granite muP multipliers.
    encoder_config = GraniteSpeechEncoderConfig(
        input_dim=160,
        num_layers=2,  # default 10
        hidden_dim=64,  # published 1024
        num_heads=4,  # default 8
        context_size=16,  # default 200
        max_pos_emb=32,  # default 512
        output_dim=42,
        conv_kernel_size=15,
    )
    projector_config = Blip2QFormerConfig(
        hidden_size=64,  # published 1024
        num_hidden_layers=2,
        num_attention_heads=4,  # published 16
        intermediate_size=128,  # published 4096
        cross_attention_frequency=1,
        encoder_hidden_size=64,  # = encoder hidden (published 1024)
        layer_norm_eps=1e-12,
    )
    text_config = GraniteConfig(
        vocab_size=vocab_size,  # published 49160
        hidden_size=64,  # published 2048
        intermediate_size=128,  # published 8192
        num_hidden_layers=2,  # published 40
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        max_position_embeddings=256,
        embedding_multiplier=12.0,
        attention_multiplier=1 / 64,
        residual_multiplier=0.22,
        logits_scaling=8.0,
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
    )
    return [GraniteSpeechConfig(
        text_config=text_config,
        encoder_config=encoder_config,
        projector_config=projector_config,
        audio_token_index=audio_token_id,  # published 49155
        has_lora_adapter=False,
        window_size=window_size,
        downsample_rate=downsample_rate,
        tie_word_embeddings=True,
    )]
