"""wav2vec 2.0 with a CTC head (7-layer conv feature encoder with GroupNorm, feature projection, grouped
convolutional position embedding, post-LN transformer encoder, linear CTC head over characters), after
`facebook/wav2vec2-base-960h`, shrunk.

The 7 conv layers (kernels 10,3,3,3,3,2,2, strides 5,2,2,2,2,2,2, no bias) are kept; 16000 samples -> 49 frames.
Shrunk: conv widths 512 -> 64, hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4, intermediate 3072 -> 512
(conv position embedding kernel 128 / 16 groups kept). The 32-symbol character vocab is kept.
Inputs: 1 s of raw 16 kHz audio (2, 16000) and an attention_mask whose second sample is padded over its last
4000 samples (base-960h's feature extractor does not return a mask; this is the mask users pass anyway).
Output: CTC logits (2, 49, 32).
"""
import torch
from torch import nn
from transformers import Wav2Vec2Config, Wav2Vec2ForCTC

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Wav2Vec2ForCTC(config)

    def forward(self, input_values, attention_mask):
        return self.model(input_values=input_values, attention_mask=attention_mask).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples)
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -4000:] = 0
    input_values[1, -4000:] = 0.0  # the feature extractor pads with zeros
    return [input_values, attention_mask]


def get_init_inputs():
    # facebook/wav2vec2-base-960h config.json. Kept: conv kernels/strides, no conv bias, feat_extract_norm
    # "group", gelu everywhere, post-LN encoder (do_stable_layer_norm False), conv pos emb 128 / 16 groups,
    # layer_norm_eps 1e-5, vocab 32, pad 0 / bos 1 / eos 2, ctc_loss_reduction "sum", SpecAugment settings
    # (inactive in eval).
    return [Wav2Vec2Config(
        conv_dim=(64, 64, 64, 64, 64, 64, 64),  # published 512 each
        conv_kernel=(10, 3, 3, 3, 3, 2, 2),
        conv_stride=(5, 2, 2, 2, 2, 2, 2),
        conv_bias=False,
        feat_extract_norm="group",
        feat_extract_activation="gelu",
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        num_conv_pos_embeddings=128,
        num_conv_pos_embedding_groups=16,
        do_stable_layer_norm=False,
        vocab_size=32,
        ctc_loss_reduction="sum",
        apply_spec_augment=True,
        mask_time_prob=0.05,
    )]
