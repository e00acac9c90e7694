"""Nemotron 3.5 ASR streaming transducer (NVIDIA, `nvidia/nemotron-3.5-asr-streaming-0.6b`, Nemotron3_5AsrForRNNT),
shrunk: a cache-aware streaming FastConformer encoder with language-prompt conditioning and an RNN-T head, run as in
training / scoring: the full (batch, frames, label positions, vocab) transducer lattice of joint logits.
  - Subsampling (8x): a CAUSAL strided 3 x 3 Conv2d stem over the log-mel image (time padded kernel-1 on the left and
    stride-1 on the right), then two depthwise-separable stages (causal depthwise strided Conv2d + 1 x 1 conv), ReLU,
    frames beyond each sample's valid length zeroed after every stage, flatten channels x freq, Linear, times
    sqrt(d) input scale.
  - Conformer blocks (macaron): 0.5 x FFN, relative-position self-attention (Transformer-XL style: content bias u and
    position bias v, a learned projection of sinusoidal relative positions, the "rel shift" pad / reshape trick), a
    GLU conv module whose depthwise conv is CAUSAL (left-padded) with LayerNorm and SiLU, 0.5 x FFN, LayerNorm. The
    attention mask is "chunked limited": frames are grouped in chunks of (lookahead + 1) and a query sees its own
    chunk (so up to `lookahead` future frames) plus floor(left_context / chunk) previous chunks, where left_context =
    sliding_window - 1, intersected with the padding mask.
  - Prompt fusion: a one-hot language-prompt vector (num_prompts slots) is broadcast over time, concatenated to the
    encoder output and fused by Linear -> ReLU -> Linear, then projected to the joint width.
  - RNN-T: the prediction network embeds the previous labels (blank first) and runs a 2-layer LSTM + Linear; the
    joint adds encoder frame t and label position u (broadcast to (B, T, U, d)), ReLU, Linear to the vocab (blank
    last).

Shrunk (from the class defaults, which are the checkpoint's): encoder hidden 1024 -> 64, 24 layers -> 2, 8 heads -> 4,
FFN 4096 -> 128, subsampling channels 256 -> 16, sliding window 71 -> 9 (left context 8), default lookahead 13 -> 3
(chunks of 4 frames, 2 left chunks); prediction / joint width 640 -> 64, vocab 13088 -> 1000 (blank 13087 -> 999),
prompt slots 128 -> 16 (auto-detect slot 101 -> 13), prompt MLP 2048 -> 128. Kept: 80 mel bins, 8x subsampling,
conv kernel 9, 2 LSTM layers, relu joint.
Inputs: input_features (2, 160, 80) log-mel frames with an attention_mask (the second sample has 120 valid frames),
decoder_input_ids (2, 6) (blank then 5 labels), prompt_ids (2,). Output: joint logits (2, 21, 6, 1000) (the causal
padding gives 21 encoder frames for 160 mel frames).
"""
import torch
from torch import nn
from transformers import Nemotron3_5AsrConfig, Nemotron3_5AsrForRNNT

batch_size = 2
num_frames = 160
num_mel_bins = 80
label_len = 5
vocab_size = 1000
blank_token_id = 999  # published 13087
num_prompts = 16
num_lookahead_tokens = 3


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Nemotron3_5AsrForRNNT(config)

    def forward(self, input_features, attention_mask, decoder_input_ids, prompt_ids):
        return self.model(input_features=input_features, attention_mask=attention_mask,
                          decoder_input_ids=decoder_input_ids, prompt_ids=prompt_ids,
                          num_lookahead_tokens=num_lookahead_tokens).logits


def get_inputs():
    input_features = torch.randn(batch_size, num_frames, num_mel_bins)
    attention_mask = torch.ones(batch_size, num_frames, dtype=torch.long)
    attention_mask[1, 120:] = 0
    input_features[1, 120:] = 0.0
    labels = torch.randint(1, blank_token_id, (batch_size, label_len))
    decoder_input_ids = torch.cat([torch.full((batch_size, 1), blank_token_id), labels], dim=1)
    prompt_ids = torch.tensor([3, 13])  # a fixed language slot, and the "auto" slot
    return [input_features, attention_mask, decoder_input_ids, prompt_ids]


def get_init_inputs():
    # Nemotron3_5AsrConfig / NemotronAsrStreamingEncoderConfig defaults (the checkpoint's), shrunk where commented.
    encoder_config = dict(
        model_type="nemotron_asr_streaming_encoder",
        hidden_size=64,  # published 1024
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 8
        intermediate_size=128,  # published 4096
        subsampling_conv_channels=16,  # published 256
        sliding_window=9,  # published 71
        default_num_lookahead_tokens=num_lookahead_tokens,  # published 13
    )
    return [Nemotron3_5AsrConfig(
        encoder_config=encoder_config,
        vocab_size=vocab_size,  # published 13088
        decoder_hidden_size=64,  # published 640
        blank_token_id=blank_token_id,
        num_prompts=num_prompts,  # published 128
        prompt_intermediate_size=128,  # published 2048
        default_prompt_id=13,  # published 101
    )]
