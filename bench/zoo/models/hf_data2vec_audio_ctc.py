"""data2vec-audio with a CTC head (7-layer conv feature encoder with a LayerNorm after every conv, feature
projection, a 5-layer convolutional position embedding (grouped convs of kernel 19, each followed by a parameter-free
LayerNorm and GELU), post-LN transformer encoder, linear CTC head over characters), after
`facebook/data2vec-audio-base-960h`, shrunk.

Data2VecAudioForCTC rather than UniSpeechSatForCTC (both exist in transformers 5.24): UniSpeechSatForCTC is Wav2Vec2ForCTC module for module (its modular file subclasses
every wav2vec2 part; only its pre-training head differs), so it would repeat hf_wav2vec2_ctc, while data2vec-audio's
CTC path has its own parts: per-layer LayerNorm in the feature encoder and the stacked positional conv layers.
The 7 conv layers (kernels 10,3,3,3,3,2,2, strides 5,2,2,2,2,2,2, no bias) are kept; 8000 samples -> 24 frames.
Shrunk: conv widths 512 -> 64, hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4, intermediate 3072 -> 512
(positional conv: 5 layers, kernel 19, 16 groups kept). The 32-symbol character vocab is kept.
Inputs: 0.5 s of raw 16 kHz audio (2, 8000) and an attention_mask whose second sample is zero-padded over its last
2000 samples (this checkpoint's feature extractor returns the mask). Output: CTC logits (2, 24, 32).
"""
import torch
from torch import nn
from transformers import Data2VecAudioConfig, Data2VecAudioForCTC

batch_size = 2
num_samples = 8000  # 0.5 s at 16 kHz


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Data2VecAudioForCTC(config)

    def forward(self, input_values, attention_mask):
        return self.model(input_values=input_values, attention_mask=attention_mask).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples)
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -2000:] = 0
    input_values[1, -2000:] = 0.0  # the feature extractor pads with zeros
    return [input_values, attention_mask]


def get_init_inputs():
    # facebook/data2vec-audio-base-960h config.json. Kept: conv kernels/strides, no conv bias, gelu everywhere,
    # post-LN encoder, positional conv embedding of 5 layers / kernel 19 / 16 groups, layer_norm_eps 1e-5,
    # vocab 32, pad 0 / bos 1 / eos 2, ctc_loss_reduction "sum", no adapter, SpecAugment time masking
    # (apply_spec_augment true; inactive in eval), dropouts (inactive in eval).
    return [Data2VecAudioConfig(
        vocab_size=32,
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        layer_norm_eps=1e-5,
        feat_extract_activation="gelu",
        conv_dim=(64, 64, 64, 64, 64, 64, 64),  # published 512 each
        conv_stride=(5, 2, 2, 2, 2, 2, 2),
        conv_kernel=(10, 3, 3, 3, 3, 2, 2),
        conv_bias=False,
        num_conv_pos_embedding_groups=16,
        conv_pos_kernel_size=19,
        num_conv_pos_embeddings=5,
        mask_time_prob=0.05,
        mask_time_length=10,
        ctc_loss_reduction="sum",
        add_adapter=False,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )]
