"""Wav2Vec2-BERT: Conformer speech encoder fed with stacked log-mel input_features (no CNN feature encoder):
feature projection, then Conformer layers (half-step FFNs, self-attention with clipped relative_key position
embeddings, depthwise-conv module), after `facebook/w2v-bert-2.0`, shrunk.

Shrunk: hidden 1024 -> 128, 24 layers -> 2, 16 heads -> 4, intermediate 4096 -> 256,
mask_time_prob 0.05 -> 0.0 (SpecAugment is training-only; 0 drops the otherwise unused masked_spec_embed).
Inputs: input_features (2, 50, 160) (1 s of 80-bin fbank at 10 ms, stride-2 stacked to 160 as the
SeamlessM4T feature extractor does) and an attention_mask (2, 50) whose second sample is right-padded (5 frames).
Output: last_hidden_state (2, 50, 128).
"""
import torch
from torch import nn
from transformers import Wav2Vec2BertConfig, Wav2Vec2BertModel

batch_size = 2
num_frames = 50
feature_dim = 160


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Wav2Vec2BertModel(config)

    def forward(self, input_features, attention_mask):
        return self.model(input_features=input_features, attention_mask=attention_mask).last_hidden_state


def get_inputs():
    input_features = torch.randn(batch_size, num_frames, feature_dim)
    attention_mask = torch.ones(batch_size, num_frames, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_features, attention_mask]


def get_init_inputs():
    # facebook/w2v-bert-2.0 config.json. Kept: feature_projection_input_dim 160, swish, position_embeddings_type
    # "relative_key" with left/right_max_position_embeddings 64/8, conv_depthwise_kernel_size 31,
    # layer_norm_eps 1e-5, no adapter.
    return [Wav2Vec2BertConfig(
        hidden_size=128,  # published 1024
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        intermediate_size=256,  # published 4096
        output_hidden_size=128,  # published 1024 (= hidden_size)
        feature_projection_input_dim=feature_dim,  # published 160
        mask_time_prob=0.0,  # published 0.05
    )]
