"""SEW-D speech recognizer (Wu et al. 2021, "Performance-Efficiency Trade-offs in Unsupervised Pre-training for Speech
Recognition": Squeezed and Efficient Wav2vec with DeBERTa's Disentangled attention), after the SEWDConfig defaults,
which transformers documents as the `asapp/sew-d-tiny-100k` style configuration (the CTC checkpoint is
`asapp/sew-d-tiny-100k-ft-ls100h`), shrunk.

SEWDForCTC. A 13-layer conv feature encoder over the raw 16 kHz waveform (kernels 10,3,1,3,1,3,1,3,1,2,1,2,1,
strides 5,2,1,2,1,2,1,2,1,2,1,2,1, no bias, GroupNorm on the first layer only, GELU: one frame per 320 samples,
16000 samples -> 49 frames), LayerNorm + linear feature projection; the frame mask is rebuilt from the conv output
lengths. Squeeze: padded frames zeroed (boolean-index assignment), the frames average-pooled by squeeze_factor 2
(49 -> 24) and added to a strided grouped convolutional position embedding (kernel 128, 16 groups, stride 2), the
mask max-pooled the same way. The squeezed sequence goes through DeBERTa-v2 post-LN layers: disentangled
self-attention with content->content, content->position (c2p) and position->content (p2c) terms, relative positions
log-bucketed (256 buckets, max 512), relative embeddings LayerNormed and shared by all layers, keys shared between
content and position projections (share_att_key), scores scaled by sqrt(3 * head_dim), and a masked softmax that is
a custom torch.autograd.Function (XSoftmax: masked_fill -inf, softmax, masked_fill 0); GELU (gelu_python) FFN.
Upsampling: a linear layer to squeeze_factor x hidden, reshaped to 2 frames per token (24 -> 48) and zero-padded back
to the 49 input frames; then the CTC head (dropout + linear to the 32-symbol character vocab).
Shrunk: hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head_dim 64 -> 32), intermediate 3072 -> 512, conv feature
widths (64, 128 x 4, 256 x 4, 512 x 4) -> (16, 32 x 4, 64 x 4, 128 x 4) (all 13 layers, kernels and strides kept).
Kept: squeeze_factor 2, position_buckets 256, max_position_embeddings 512, pos_att_type (p2c, c2p),
norm_rel_ebd layer_norm, conv position embedding 128 / 16 groups, vocab 32.
Inputs: 1 s of raw 16 kHz audio (2, 16000) and an attention_mask (int64) whose second sample is zero-padded over its
last 4000 samples (the feature extractor pads with zeros and returns the mask; 37 of its 49 frames are real).
Output: CTC logits (2, 49, 32).
"""
import torch
from torch import nn
from transformers import SEWDConfig, SEWDForCTC

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz
vocab_size = 32


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SEWDForCTC(config)

    def forward(self, input_values, attention_mask):
        return self.model(input_values=input_values, attention_mask=attention_mask).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples)  # zero mean / unit variance (do_normalize)
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -4000:] = 0
    input_values[1, -4000:] = 0.0  # the feature extractor pads with zeros
    return [input_values, attention_mask]


def get_init_inputs():
    # SEWDConfig defaults (the sew-d-tiny-100k style configuration). Kept: vocab 32, squeeze_factor 2,
    # max_position_embeddings 512, position_buckets 256, share_att_key, relative_attention, pos_att_type (p2c, c2p),
    # norm_rel_ebd layer_norm, gelu_python, layer_norm_eps 1e-7, feature_layer_norm_eps 1e-5, feat_extract_norm
    # "group", gelu conv activation, conv kernels / strides, no conv bias, conv pos emb 128 / 16 groups, dropouts
    # (inactive in eval), SpecAugment settings (inactive in eval), pad 0 / bos 1 / eos 2.
    return [SEWDConfig(
        vocab_size=vocab_size,
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        squeeze_factor=2,
        max_position_embeddings=512,
        position_buckets=256,
        share_att_key=True,
        relative_attention=True,
        pos_att_type=("p2c", "c2p"),
        norm_rel_ebd="layer_norm",
        hidden_act="gelu_python",
        layer_norm_eps=1e-7,
        feature_layer_norm_eps=1e-5,
        feat_extract_norm="group",
        feat_extract_activation="gelu",
        conv_dim=(16, 32, 32, 32, 32, 64, 64, 64, 64, 128, 128, 128, 128),  # published (64, 128 x 4, 256 x 4, 512 x 4)
        conv_stride=(5, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1),
        conv_kernel=(10, 3, 1, 3, 1, 3, 1, 3, 1, 2, 1, 2, 1),
        conv_bias=False,
        num_conv_pos_embeddings=128,
        num_conv_pos_embedding_groups=16,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )]
