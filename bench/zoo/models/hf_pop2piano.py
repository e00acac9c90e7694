"""Pop2Piano piano-cover generator (Choi & Lee 2023, "Pop2Piano: Pop Audio-based Piano Cover Generation"), after
`sweetcocoa/pop2piano` (config.json + generation_config.json), shrunk, run the way a user computing the training
loss runs it (teacher forcing), with the composer conditioning that generate() applies.

Pop2PianoForConditionalGeneration: a T5 (v1.1-style) encoder-decoder whose encoder input is not tokens but the
log-mel spectrogram of a 2-bar audio chunk, used directly as inputs_embeds (512 mel bins = d_model). The composer
(arranger style) is a learned embedding (Pop2PianoConcatEmbeddingToMel, 21 composers) prepended as an extra first
frame (get_mel_conditioner_outputs: the composer token id minus the smallest composer token id indexes the
embedding; rows whose first frame is padding are zeroed in place; the mask gets one more column). Encoder and
decoder: pre-RMSNorm (T5LayerNorm, no bias / no mean) blocks, unscaled dot-product attention with T5 relative
position buckets (32 buckets, max distance 128, the bias computed in the first layer and shared by the others,
bidirectional in the encoder, causal in the decoder), gated FFN (wi_0 / wi_1, gate activation "relu" from
dense_act_fn, as published), cross-attention to the masked encoder frames; the decoder token embedding is the shared one,
the LM head is a separate matrix, and there is no T5 d_model**-0.5 output scaling (tie_word_embeddings false in the
published config).
Shrunk: 6 encoder layers -> 2, 6 decoder layers -> 2. The published widths are kept (d_model 512 = the 512 mel
bins, d_kv 64, 8 heads, d_ff 2048), as is the 2400-token vocab (MIDI event tokens + composer tokens 2052..2072).
Inputs (the feature extractor at 22050 Hz, window 4096, hop 1024, 512 HTK mel bins from 10 Hz, log clipped at 1e-6;
each row a 2-bar chunk cut at the detected beats; the rows of the two songs padded with 0 to the longest, with an
attention_mask; the all-zero separator rows the feature extractor puts between songs are left out):
- input_features (2, 44, 512) float32: row 0 a 2-bar chunk of a 120 bpm song (2.0 s = 44100 samples -> 44
  frames), row 1 of a 150 bpm song (1.6 s = 35280 samples -> 35 frames, zero-padded to 44);
- attention_mask (2, 44) int64, 0 on the 9 padded frames of row 1;
- decoder_input_ids (2, 64): the MIDI-event labels shifted right behind decoder_start_token_id 0 (= pad), the second
  row's labels 16 tokens shorter (-100 in the labels, pad 0 after the shift).
The composer is "composer1" (token 2052, embedding row 0), passed as generate() passes it.
Output: LM logits (2, 64, 2400).
"""
import torch
from torch import nn
from transformers import GenerationConfig, Pop2PianoConfig, Pop2PianoForConditionalGeneration

batch_size = 2
num_mel_bins = 512  # = d_model (the mel frames are the encoder's inputs_embeds)
num_frames = 44  # 2 bars at 120 bpm: 1 + 44100 // 1024
short_frames = 35  # 2 bars at 150 bpm: 1 + 35280 // 1024
target_len = 64
vocab_size = 2400
midi_token_range = (4, 234)  # 4 special, 128 note, 2 velocity, 100 time tokens
pad_token_id = 0  # also decoder_start_token_id
composer = "composer1"
composer_to_feature_token = {f"composer{i + 1}": 2052 + i for i in range(21)}  # generation_config.json


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Pop2PianoForConditionalGeneration(config)
        self.generation_config = GenerationConfig(
            composer_to_feature_token=composer_to_feature_token,
            decoder_start_token_id=pad_token_id,
            pad_token_id=pad_token_id,
            eos_token_id=1,
        )

    def forward(self, input_features, attention_mask, decoder_input_ids):
        # what Pop2PianoForConditionalGeneration.generate() does before calling the encoder-decoder
        inputs_embeds, attention_mask = self.model.get_mel_conditioner_outputs(
            input_features=input_features,
            composer=composer,
            generation_config=self.generation_config,
            attention_mask=attention_mask,
        )
        return self.model(
            input_features=inputs_embeds, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids
        ).logits


def get_inputs():
    # log-mel values (natural log of mel power, clipped at log(1e-6) = -13.8)
    input_features = (torch.randn(batch_size, num_frames, num_mel_bins) * 3.0 - 4.0).clamp(min=-13.8155)
    attention_mask = torch.ones(batch_size, num_frames, dtype=torch.long)
    input_features[1, short_frames:] = 0.0  # the feature extractor pads with padding_value 0
    attention_mask[1, short_frames:] = 0
    labels = torch.randint(*midi_token_range, (batch_size, target_len))
    labels[:, -1] = 1  # eos
    labels[1, -16:] = -100
    labels[1, -17] = 1
    decoder_input_ids = torch.full_like(labels, pad_token_id)  # Pop2PianoForConditionalGeneration._shift_right
    decoder_input_ids[:, 1:] = labels[:, :-1]
    decoder_input_ids[decoder_input_ids == -100] = pad_token_id
    return [input_features, attention_mask, decoder_input_ids]


def get_init_inputs():
    # sweetcocoa/pop2piano config.json. Kept: vocab 2400, composer_vocab_size 21, d_model 512, d_kv 64, d_ff 2048,
    # 8 heads, 32 relative buckets / max distance 128, gated-gelu feed_forward_proj with dense_act_fn "relu" (the
    # default; the published config does not set it), layer_norm_epsilon 1e-6, dropout 0.1 (inactive in eval),
    # initializer_factor 1.0, tie_word_embeddings false (no output scaling), pad 0 / eos 1 / decoder_start 0.
    return [Pop2PianoConfig(
        vocab_size=vocab_size,
        composer_vocab_size=21,
        d_model=num_mel_bins,
        d_kv=64,
        d_ff=2048,
        num_layers=2,  # published 6
        num_decoder_layers=2,  # published 6
        num_heads=8,
        relative_attention_num_buckets=32,
        relative_attention_max_distance=128,
        dropout_rate=0.1,
        layer_norm_epsilon=1e-6,
        initializer_factor=1.0,
        feed_forward_proj="gated-gelu",
        dense_act_fn="relu",
        is_encoder_decoder=True,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,
        eos_token_id=1,
        decoder_start_token_id=pad_token_id,
    )]
