"""wav2vec 2.0 Conformer with rotary position embeddings and a CTC head (fairseq S2T, Wang et al. 2020/2022), after
`facebook/wav2vec2-conformer-rope-large-960h-ft`, shrunk.

Wav2Vec2ConformerForCTC. wav2vec 2.0's 7-layer conv feature encoder over the raw waveform (kernels 10,3,3,3,3,2,2,
strides 5,2,2,2,2,2,2, conv bias, LayerNorm after every conv layer ("layer" feature norm), GELU; 16000 samples -> 49
frames), LayerNorm + linear feature projection; padded frames are zeroed. Then Conformer blocks (Gulati et al.
2020), each: x + 1/2 FFN(LN(x)) (Swish MLP), x + MHSA(LN(x)) with rotary position embeddings on q and k (theta
10000, over the whole head dim; no absolute or relative position terms), x + ConvModule(LN(x)) (pointwise conv to
2x width + GLU, depthwise conv of kernel 31, BatchNorm, Swish, pointwise conv), x + 1/2 FFN(LN(x)), LN; a final
LayerNorm over the stack; a linear CTC head over 32 characters. (The encoder also holds wav2vec 2.0's grouped conv
position embedding, which the conformer's forward never calls; SpecAugment's mask embedding is unused in eval.)
Shrunk: hidden 1024 -> 128, 24 layers -> 2, 16 heads -> 4 (head_dim 64 -> 32), intermediate 4096 -> 512, conv
feature widths 512 -> 64 (depthwise kernel 31, the 32-symbol vocab kept).
Inputs: 1 s of raw 16 kHz audio (2, 16000) and the feature extractor's attention_mask (return_attention_mask True for
the large "layer"-norm checkpoints), the second sample zero-padded over its last 4000 samples.
Output: CTC logits (2, 49, 32).
"""
import torch
from torch import nn
from transformers import Wav2Vec2ConformerConfig, Wav2Vec2ConformerForCTC

batch_size = 2
num_samples = 16000  # 1 s at 16 kHz


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Wav2Vec2ConformerForCTC(config)

    def forward(self, input_values, attention_mask):
        return self.model(input_values=input_values, attention_mask=attention_mask).logits


def get_inputs():
    input_values = torch.randn(batch_size, num_samples)  # zero-mean unit-variance normalized, as the extractor does
    attention_mask = torch.ones(batch_size, num_samples, dtype=torch.long)
    attention_mask[1, -4000:] = 0
    input_values[1, -4000:] = 0.0  # the feature extractor pads with zeros
    return [input_values, attention_mask]


def get_init_inputs():
    # facebook/wav2vec2-conformer-rope-large-960h-ft config.json. Kept: conv kernels/strides, gelu feature encoder,
    # conv pos emb 128 / 16 groups, rotary_embedding_base 10000, max_source_positions 5000, conv_depthwise_kernel_size
    # 31, layer_norm_eps 1e-5, initializer_range 0.02, ctc_loss_reduction "sum", pad 0 / bos 1 / eos 2, SpecAugment
    # settings (inactive in eval), dropouts (inactive in eval).
    return [Wav2Vec2ConformerConfig(
        vocab_size=32,
        hidden_size=128,  # published 1024
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        intermediate_size=512,  # published 4096
        hidden_act="swish",
        feat_extract_norm="layer",
        conv_dim=(64, 64, 64, 64, 64, 64, 64),  # published 512 each
        conv_bias=True,
        feat_proj_dropout=0.1,
        layerdrop=0.0,
        position_embeddings_type="rotary",
    )]
