"""WavLM with a CTC head (7-layer conv feature encoder with GroupNorm on the first layer, feature projection,
grouped convolutional position embedding, post-LN transformer encoder whose attention adds a bucketed relative
position bias computed in the first layer and shared by all, gated per head and per token by a GRU-style gate
computed from the query; linear CTC head over characters), after `microsoft/wavlm-base-plus`, shrunk.

WavLMForCTC (the published checkpoint is the pre-trained encoder; its CTC head is the one fine-tuning adds,
over the 32-symbol character vocab of its config). The 7 conv layers (kernels 10,3,3,3,3,2,2, strides
5,2,2,2,2,2,2, no bias) are kept; 16000 samples -> 49 frames.
Shrunk: conv widths 512 -> 64, hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head_dim 64 -> 32),
intermediate 3072 -> 512 (4x kept). Kept: conv position embedding kernel 128 / 16 groups, relative position
num_buckets 320 and max_bucket_distance 800.
Inputs: 1 s of raw 16 kHz audio (2, 16000) and an attention_mask whose second sample is zero-padded over its
last 4000 samples (this checkpoint's feature extractor returns the mask). Output: CTC logits (2, 49, 32).
The attention runs through F.multi_head_attention_forward with a bool key-padding mask beside the float gated
position bias, for which torch prints a deprecation UserWarning (the library's call, not this file's).
"""
import torch
from torch import nn
from transformers import WavLMConfig, WavLMForCTC

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = WavLMForCTC(config)

    def forward(self, input_values, attention_mask):
        return self.model(input_values=input_values, attention_mask=attention_mask).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples)
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -4000:] = 0
    input_values[1, -4000:] = 0.0  # the feature extractor pads with zeros
    return [input_values, attention_mask]


def get_init_inputs():
    # microsoft/wavlm-base-plus config.json. Kept: conv kernels/strides, no conv bias, feat_extract_norm "group",
    # post-LN encoder (do_stable_layer_norm false), gelu everywhere, conv pos emb 128 / 16 groups,
    # num_buckets 320, max_bucket_distance 800, layer_norm_eps 1e-5, vocab 32, pad 0 / bos 1 / eos 2,
    # ctc_loss_reduction "sum", dropouts / layerdrop 0.05 / SpecAugment settings (inactive in eval).
    return [WavLMConfig(
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
        layer_norm_eps=1e-5,
        num_conv_pos_embeddings=128,
        num_conv_pos_embedding_groups=16,
        num_buckets=320,
        max_bucket_distance=800,
        do_stable_layer_norm=False,
        hidden_dropout=0.1,
        attention_dropout=0.1,
        activation_dropout=0.0,
        feat_proj_dropout=0.1,
        final_dropout=0.0,
        layerdrop=0.05,
        initializer_range=0.02,
        vocab_size=32,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        ctc_loss_reduction="sum",
        apply_spec_augment=True,
        mask_time_prob=0.05,
        mask_time_length=10,
        mask_time_min_masks=2,
        mask_feature_prob=0.0,
    )]
