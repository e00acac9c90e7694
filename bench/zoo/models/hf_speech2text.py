"""Speech2Text (2 strided Conv1d + GLU subsampler, sinusoidal positions, pre-LN transformer encoder-decoder),
after `facebook/s2t-small-librispeech-asr`, shrunk.

Shrunk: 12 encoder layers -> 2, 6 decoder layers -> 2, ffn 2048 -> 512, conv_channels 1024 -> 256,
vocab 10000 -> 1000 (d_model 256, 4 heads, kernels (5, 5) kept).
Inputs: input_features (2, 200, 80) log-mel filterbanks (2 s at a 10 ms hop), an attention_mask whose second
sample is padded over its last 40 frames, decoder_input_ids (2, 16). Output: LM logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import Speech2TextConfig, Speech2TextForConditionalGeneration

batch_size = 2
num_frames = 200
num_mel_bins = 80
target_len = 16
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Speech2TextForConditionalGeneration(config)

    def forward(self, input_features, attention_mask, decoder_input_ids):
        return self.model(input_features=input_features, attention_mask=attention_mask,
                          decoder_input_ids=decoder_input_ids).logits


def get_inputs():
    input_features = torch.randn(batch_size, num_frames, num_mel_bins)
    attention_mask = torch.ones(batch_size, num_frames, dtype=torch.long)
    attention_mask[1, -40:] = 0
    input_features[1, -40:] = 0.0  # the feature extractor pads with zeros
    decoder_input_ids = torch.randint(3, vocab_size, (batch_size, target_len))
    decoder_input_ids[:, 0] = 2  # decoder_start_token_id
    return [input_features, attention_mask, decoder_input_ids]


def get_init_inputs():
    # facebook/s2t-small-librispeech-asr config.json. Kept: d_model 256, 4 heads, relu, conv kernels (5, 5),
    # 80 input features, scale_embedding, max positions 6000 / 1024, tied head, pad 1 / bos 0 / eos 2 /
    # decoder_start 2.
    return [Speech2TextConfig(
        vocab_size=vocab_size,  # published 10000
        d_model=256,
        encoder_layers=2,  # published 12
        decoder_layers=2,  # published 6
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=512,  # published 2048
        decoder_ffn_dim=512,  # published 2048
        conv_channels=256,  # published 1024
        conv_kernel_sizes=(5, 5),
        num_conv_layers=2,
        input_feat_per_channel=80,
        input_channels=1,
        activation_function="relu",
        scale_embedding=True,
        max_source_positions=6000,
        max_target_positions=1024,
    )]
