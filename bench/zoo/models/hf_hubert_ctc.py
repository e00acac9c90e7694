"""HuBERT with a CTC head (7-layer conv feature encoder with LayerNorm, feature projection, grouped convolutional
position embedding, pre-LN ("stable layer norm") transformer encoder, linear CTC head over characters), after
`facebook/hubert-large-ls960-ft`, shrunk.

The 7 conv layers (kernels 10,3,3,3,3,2,2, strides 5,2,2,2,2,2,2, with bias) are kept; 16000 samples -> 49 frames.
Shrunk: conv widths 512 -> 64, hidden 1024 -> 128, 24 layers -> 2, 16 heads -> 4, intermediate 4096 -> 512
(conv position embedding kernel 128 / 16 groups kept). The 32-symbol character vocab is kept.
Inputs: 1 s of raw 16 kHz audio (2, 16000) and an attention_mask whose second sample is zero-padded over its last
4000 samples (this checkpoint's feature extractor returns the mask). Output: CTC logits (2, 49, 32).
"""
import torch
from torch import nn
from transformers import HubertConfig, HubertForCTC

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = HubertForCTC(config)

    def forward(self, input_values, attention_mask):
        return self.model(input_values=input_values, attention_mask=attention_mask).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples)
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -4000:] = 0
    input_values[1, -4000:] = 0.0  # the feature extractor pads with zeros
    return [input_values, attention_mask]


def get_init_inputs():
    # facebook/hubert-large-ls960-ft config.json. Kept: conv kernels/strides, conv bias, feat_extract_norm
    # "layer", do_stable_layer_norm, gelu everywhere, conv pos emb 128 / 16 groups, layer_norm_eps 1e-5,
    # vocab 32, pad 0 / bos 1 / eos 2, SpecAugment settings (inactive in eval).
    return [HubertConfig(
        conv_dim=(64, 64, 64, 64, 64, 64, 64),  # published 512 each
        conv_kernel=(10, 3, 3, 3, 3, 2, 2),
        conv_stride=(5, 2, 2, 2, 2, 2, 2),
        conv_bias=True,
        feat_extract_norm="layer",
        feat_extract_activation="gelu",
        hidden_size=128,  # published 1024
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        intermediate_size=512,  # published 4096
        hidden_act="gelu",
        layer_norm_eps=1e-5,
        num_conv_pos_embeddings=128,
        num_conv_pos_embedding_groups=16,
        do_stable_layer_norm=True,
        vocab_size=32,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        apply_spec_augment=True,
        mask_time_prob=0.05,
    )]
