"""FastSpeech 2 text-to-spectrogram model with Conformer encoder and decoder (Ren et al. 2020, "FastSpeech 2: Fast and
High-Quality End-to-End Text to Speech", in ESPnet's Conformer variant), after `espnet/fastspeech2_conformer` (its
configuration = the FastSpeech2ConformerConfig defaults), shrunk.

FastSpeech2ConformerModel, non-autoregressive. Encoder: phoneme embedding (padding_idx 0), scaled by sqrt(hidden),
ESPnet's relative positional encoding (sinusoids for relative offsets -(T-1)..(T-1)), then post-LN Conformer blocks:
macaron half-step feed-forward (a "multi-layered conv1d" FFN: conv k3 -> ReLU -> conv k3), relative-position
self-attention (Transformer-XL style pos_bias_u / pos_bias_v and the shift trick, padded phonemes masked),
convolution module (pointwise conv -> GLU -> depthwise conv (kernel 7) -> BatchNorm -> SiLU -> pointwise conv),
second half-step FFN, final LayerNorm. Variance adaptor: a pitch predictor and an energy predictor (conv -> ReLU ->
LayerNorm stacks + linear; padded phonemes zeroed) whose token-level outputs are embedded by kernel-1 convs and added
to the phoneme states; a duration predictor (same stack) whose log-domain output is turned, in eval mode, into
integer frame counts (clamp(round(exp(x) - 1), min 0), padded phonemes set to 0). Length regulator: a Python loop
over the batch that repeat_interleaves each phoneme state by its duration into a zero tensor as long as the longest
utterance (DATA-DEPENDENT output length). Decoder: the same Conformer stack (depthwise kernel 31), run without a
mask over the regulated frames. Output: a linear layer to 80 mel bins plus a residual 5-layer conv postnet
(conv -> BatchNorm -> tanh, the last layer without tanh).
Shrunk: hidden 384 -> 128 (2 heads kept, head_dim 192 -> 64), encoder / decoder layers 4 -> 2 each, encoder /
decoder FFN units 1536 -> 512, duration / pitch / energy predictor channels 256 -> 128, pitch predictor layers
5 -> 2, postnet layers 5 -> 3 (first, middle and last kinds kept), postnet channels 256 -> 128. Kept: vocab 78,
80 mel bins, kernels (FFN 3, encoder conv 7, decoder conv 31, duration / energy 3, pitch 5, postnet 5), macaron
style, conv module, reduction_factor 1, speaking_speed 1.0, stop-gradient settings.
The duration predictor's output bias is set to log(1 + 6) in Model.__init__ so that the untrained model predicts
several frames per phoneme (0-15 with seed 0, 91 and 87 frames in all), like the trained LJSpeech model (22.05 kHz,
hop 256: ~86 frames/s, ~13 phonemes/s, ~6 frames per phoneme), instead of the 0-1 frames a freshly initialized
predictor gives; the spectrogram length is still decided by the predicted durations.
Inputs: input_ids (2, 25) as FastSpeech2ConformerTokenizer returns them: phoneme ids in [2, 77) followed by
<sos/eos> = 77; the second utterance has 18 phonemes + eos and is right-padded with <blank> = 0 over 6 positions;
attention_mask (2, 25) int64 with the padding 0.
Output: the post-net mel spectrogram (2, T, 80), T = the longer utterance's total predicted duration (91 with
seed 0; the shorter one is zero-padded before the decoder).
"""
import math

import torch
from torch import nn
from transformers import FastSpeech2ConformerConfig, FastSpeech2ConformerModel

batch_size = 2
seq_len = 25  # 24 phonemes + <sos/eos>
vocab_size = 78
pad_token_id = 0  # <blank>
unk_token_id = 1  # <unk>
eos_token_id = 77  # <sos/eos>
frames_per_phoneme = 6


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = FastSpeech2ConformerModel(config)
        # Stand-in for a trained duration predictor: log(1 + d) is what the predictor is trained to output for a
        # phoneme lasting d frames.
        nn.init.constant_(self.model.duration_predictor.linear.bias, math.log(1.0 + frames_per_phoneme))

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).spectrogram


def get_inputs():
    input_ids = torch.randint(2, eos_token_id, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[0, -1] = eos_token_id
    input_ids[1, 18] = eos_token_id  # 18 phonemes + eos
    input_ids[1, 19:] = pad_token_id
    attention_mask[1, 19:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # espnet/fastspeech2_conformer config.json (the FastSpeech2ConformerConfig defaults). Kept: vocab 78, 80 mel bins,
    # 2 attention heads, positionwise conv kernel 3, post-LN (normalize_before False), no concat_after,
    # reduction_factor 1, speaking_speed 1.0, macaron style, conv module, encoder kernel 7 / decoder kernel 31,
    # duration predictor 2 layers / kernel 3, energy predictor 2 layers / kernel 3, pitch predictor kernel 5,
    # pitch / energy embed kernel 1, stop_gradient_from_pitch_predictor True / energy False, dropouts (inactive in
    # eval), postnet kernel 5, max_source_positions 5000, use_masking, single speaker / language, conv bias.
    return [FastSpeech2ConformerConfig(
        hidden_size=128,  # published 384
        vocab_size=vocab_size,
        num_mel_bins=80,
        encoder_num_attention_heads=2,
        encoder_layers=2,  # published 4
        encoder_linear_units=512,  # published 1536
        decoder_layers=2,  # published 4
        decoder_num_attention_heads=2,
        decoder_linear_units=512,  # published 1536
        speech_decoder_postnet_layers=3,  # published 5
        speech_decoder_postnet_units=128,  # published 256
        speech_decoder_postnet_kernel=5,
        positionwise_conv_kernel_size=3,
        encoder_normalize_before=False,
        decoder_normalize_before=False,
        encoder_concat_after=False,
        decoder_concat_after=False,
        reduction_factor=1,
        speaking_speed=1.0,
        use_macaron_style_in_conformer=True,
        use_cnn_in_conformer=True,
        encoder_kernel_size=7,
        decoder_kernel_size=31,
        duration_predictor_layers=2,
        duration_predictor_channels=128,  # published 256
        duration_predictor_kernel_size=3,
        energy_predictor_layers=2,
        energy_predictor_channels=128,  # published 256
        energy_predictor_kernel_size=3,
        energy_embed_kernel_size=1,
        stop_gradient_from_energy_predictor=False,
        pitch_predictor_layers=2,  # published 5
        pitch_predictor_channels=128,  # published 256
        pitch_predictor_kernel_size=5,
        pitch_embed_kernel_size=1,
        stop_gradient_from_pitch_predictor=True,
        max_source_positions=5000,
        num_speakers=None,
        num_languages=None,
        speaker_embed_dim=None,
        convolution_bias=True,
    )]
