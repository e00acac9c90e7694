"""UniSpeech-SAT speech recognizer (Chen et al. 2021, "UniSpeech-SAT: Universal Speech Representation Learning with
Speaker Aware Pre-Training"), after `microsoft/unispeech-sat-base-100h-libri-ft` (the UniSpeechSatConfig defaults
document this configuration), shrunk.

UniSpeechSatForCTC. A 7-layer conv feature encoder over the raw 16 kHz waveform (kernels 10,3,3,3,3,2,2, strides
5,2,2,2,2,2,2, no bias, GroupNorm on the first layer only, GELU: one frame per 320 samples, 16000 samples -> 49
frames), LayerNorm + linear feature projection; the frame mask is rebuilt from the conv output lengths (cumsum / flip
trick) and the padded frames are zeroed by boolean-index assignment before the encoder. A grouped convolutional
position embedding (kernel 128, 16 groups, weight-normalized, same-pad layer dropping the last frame, GELU) is added,
then LayerNorm and post-LN transformer layers (bidirectional MHA with the padding mask, GELU FFN); linear CTC head
over the 32-symbol character vocab. The pre-training parts (speaker-aware utterance mixing, quantizer, cluster head,
masked_spec_embed / SpecAugment) do not run in eval.
Shrunk: conv widths 512 -> 64 (all 7 layers, kernels and strides kept), hidden 768 -> 128, 12 layers -> 2, 12 heads
-> 4 (head_dim 64 -> 32), intermediate 3072 -> 512. Kept: conv position embedding 128 / 16 groups, vocab 32.
Inputs: 1 s of raw 16 kHz audio (2, 16000), zero mean / unit variance, and an attention_mask (int64) whose second
sample is zero-padded over its last 4000 samples (37 of its 49 frames are real; this checkpoint's group-norm feature
extractor does not return a mask, this is the mask users pass anyway).
Output: CTC logits (2, 49, 32).
"""
import torch
from torch import nn
from transformers import UniSpeechSatConfig, UniSpeechSatForCTC

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz
vocab_size = 32


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UniSpeechSatForCTC(config)

    def forward(self, input_values, attention_mask):
        return self.model(input_values=input_values, attention_mask=attention_mask).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples)  # do_normalize: zero mean / unit variance
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -4000:] = 0
    input_values[1, -4000:] = 0.0  # the feature extractor pads with zeros
    return [input_values, attention_mask]


def get_init_inputs():
    # microsoft/unispeech-sat-base-100h-libri-ft (UniSpeechSatConfig defaults). Kept: conv kernels / strides, no conv
    # bias, feat_extract_norm "group", gelu conv activation, post-LN encoder (do_stable_layer_norm False), gelu FFN,
    # conv pos emb 128 / 16 groups, layer_norm_eps 1e-5, vocab 32, pad 0 / bos 1 / eos 2, num_clusters 504 and
    # codevector settings (pre-training only), dropouts and layerdrop (inactive in eval), SpecAugment settings
    # (inactive in eval), ctc_loss_reduction "mean".
    return [UniSpeechSatConfig(
        vocab_size=vocab_size,
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        hidden_dropout=0.1,
        activation_dropout=0.1,
        attention_dropout=0.1,
        feat_proj_dropout=0.0,
        final_dropout=0.1,
        layerdrop=0.1,
        layer_norm_eps=1e-5,
        feat_extract_norm="group",
        feat_extract_activation="gelu",
        conv_dim=(64, 64, 64, 64, 64, 64, 64),  # published 512 each
        conv_stride=(5, 2, 2, 2, 2, 2, 2),
        conv_kernel=(10, 3, 3, 3, 3, 2, 2),
        conv_bias=False,
        num_conv_pos_embeddings=128,
        num_conv_pos_embedding_groups=16,
        do_stable_layer_norm=False,
        apply_spec_augment=True,
        mask_time_prob=0.05,
        mask_time_length=10,
        ctc_loss_reduction="mean",
        num_clusters=504,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )]
