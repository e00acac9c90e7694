"""Audio Spectrogram Transformer (a DeiT-style ViT over a log-mel spectrogram: overlapping 16 x 16 patches with
stride 10 in both frequency and time, CLS + distillation tokens, classifier on their mean), after
`MIT/ast-finetuned-audioset-10-10-0.4593`, shrunk.

ASTForAudioClassification with the AudioSet label set (527 classes, multi-label).
Shrunk: hidden 768 -> 64, 12 layers -> 3, 12 heads -> 4, intermediate 3072 -> 256, max_length 1024 frames -> 64,
num_mel_bins 128 -> 48 (so 4 x 5 = 20 patches + 2 tokens instead of 12 x 101 + 2). Kept: patch 16,
frequency_stride 10, time_stride 10, 527 labels.
Input: input_values (2, 64, 48): normalized log-mel filterbank features (frames x mel bins), as ASTFeatureExtractor
returns them (mean ~0, std ~0.5).
Output: logits (2, 527).
"""
import torch
from torch import nn
from transformers import ASTConfig, ASTForAudioClassification

batch_size = 2
max_length = 64  # spectrogram frames (10 ms hop)
num_mel_bins = 48
num_labels = 527


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ASTForAudioClassification(config)

    def forward(self, input_values):
        return self.model(input_values=input_values).logits


def get_inputs():
    return [0.5 * torch.randn(batch_size, max_length, num_mel_bins)]


def get_init_inputs():
    # MIT/ast-finetuned-audioset-10-10-0.4593 config.json. Kept: patch_size 16, frequency_stride 10,
    # time_stride 10, gelu, qkv_bias, layer_norm_eps 1e-12, dropout 0, 527 AudioSet labels.
    return [ASTConfig(
        hidden_size=64,  # published 768
        num_hidden_layers=3,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        hidden_act="gelu",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        layer_norm_eps=1e-12,
        patch_size=16,
        qkv_bias=True,
        frequency_stride=10,
        time_stride=10,
        max_length=max_length,  # published 1024
        num_mel_bins=num_mel_bins,  # published 128
        num_labels=num_labels,
        problem_type="multi_label_classification",
    )]
