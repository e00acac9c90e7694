"""Qwen2-Audio audio-language model (Chu et al. 2024, "Qwen2-Audio Technical Report"), after `Qwen/Qwen2-Audio-7B`,
shrunk.

Qwen2AudioForConditionalGeneration. Audio encoder (Whisper-large-v3 style): log-mel input (128 bins, a fixed
2 x max_source_positions frames), conv1 (k3) -> GELU -> conv2 (k3, stride 2) -> GELU, learned absolute positions,
pre-LN transformer layers (bidirectional attention masked by the per-sample lengths after the convs: the mask is
built from feature_attention_mask.sum() on the host), then average pooling by 2 over time and a final LayerNorm;
one frame per 40 ms. A linear projector maps the frames to the LM width; the valid frames of each sample (lengths
((L - 1) // 2 + 1 - 2) // 2 + 1, computed from feature_attention_mask) are gathered and scattered (masked_scatter)
into the <|AUDIO|> tokens of the prompt. Language model: Qwen2 (RMSNorm pre-norm, MHA with q/k/v bias, RoPE theta
1e4, SwiGLU MLP), untied LM head.
Shrunk: audio d_model 1280 -> 64, 32 layers -> 2, 20 heads -> 4 (head_dim 64 -> 16), ffn 5120 -> 256,
max_source_positions 1500 -> 200 (the encoder input 3000 mel frames = 30 s -> 400 frames = 4 s; the feature
extractor's chunk, which the processor pads every clip to, shrinks with it); 128 mel bins kept. Text (Qwen-7B
size): hidden 4096 -> 128, 32 layers -> 2, 32 heads -> 4, 32 kv heads -> 4 (MHA kept; head_dim 128 -> 32),
intermediate 11008 -> 344 (2.6875x kept), vocab 156032 -> 1024 (the 151643-entry BPE part -> 1000, then the special
tokens in their published order: <|endoftext|> 151643 -> 1000 (also pad), <|im_start|> 1001, <|im_end|> 1002 (eos),
<|AUDIO|> 151646 -> 1003, <|audio_bos|> 1004, <|audio_eos|> 1005).
Inputs, as Qwen2AudioProcessor builds them (WhisperFeatureExtractor at 16 kHz, hop 160, padding="max_length" to
the 4 s chunk, return_attention_mask; the <|AUDIO|> token expanded to the audio's token count; prompt
"<|audio_bos|><|AUDIO|><|audio_eos|>Generate the caption in English:" with stand-in piece ids):
- sample 0: 4.0 s of audio -> 400 mel frames -> 200 after conv2 -> 100 audio tokens; 1 + 100 + 1 + 7 = 109 tokens;
- sample 1: 2.5 s -> 250 frames (feature_attention_mask 0 on the last 150) -> 125 -> 62 audio tokens; 1 + 62 + 1
  + 10 = 74 tokens, right-padded with <|endoftext|> to 109, attention_mask 0 there.
input_features (2, 128, 400) float32 (Whisper-normalized log-mel: the zero-padded tail sits at max - 8 before the
(x + 4) / 4 scaling), feature_attention_mask (2, 400) int32 (as the feature extractor returns it), input_ids /
attention_mask (2, 109) int64.
Output: LM logits (2, 109, 1024).
"""
import torch
from torch import nn
from transformers import Qwen2AudioConfig, Qwen2AudioEncoderConfig, Qwen2AudioForConditionalGeneration, Qwen2Config

batch_size = 2
num_mel_bins = 128
max_source_positions = 200  # published 1500
num_frames = 2 * max_source_positions  # 400 mel frames = 4 s at hop 160
audio_frames = [400, 250]  # 4.0 s and 2.5 s
prompt_lens = [7, 10]
vocab_size = 1024  # published 156032
endoftext_id = 1000  # published 151643 (pad / bos)
im_end_id = 1002  # published 151645 (eos)
audio_token_id = 1003  # published 151646
audio_bos_id, audio_eos_id = 1004, 1005  # published 151647, 151648


def _num_audio_tokens(num_mel_frames):
    # Qwen2AudioProcessor: conv2 (stride 2) then the average pooling (2)
    return (((num_mel_frames - 1) // 2 + 1) - 2) // 2 + 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Qwen2AudioForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, input_features, feature_attention_mask):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            input_features=input_features,
            feature_attention_mask=feature_attention_mask,
        ).logits


def get_inputs():
    # WhisperFeatureExtractor: log10 mel power, floored at (max - 8), then (x + 4) / 4; the zero-padded tail gives
    # log10(1e-10) = -10 before the floor
    log_spec = torch.full((batch_size, num_mel_bins, num_frames), -10.0)
    feature_attention_mask = torch.zeros(batch_size, num_frames, dtype=torch.int32)
    for i, n in enumerate(audio_frames):
        log_spec[i, :, :n] = torch.rand(num_mel_bins, n) * 7.5 - 6.0
        feature_attention_mask[i, :n] = 1
    floor = log_spec.amax(dim=(1, 2), keepdim=True) - 8.0
    input_features = (torch.maximum(log_spec, floor) + 4.0) / 4.0

    seqs = []
    for n_frames, n_text in zip(audio_frames, prompt_lens, strict=True):
        audio = [audio_bos_id] + [audio_token_id] * _num_audio_tokens(n_frames) + [audio_eos_id]
        seqs.append(audio + torch.randint(0, endoftext_id, (n_text,)).tolist())
    seq_len = max(len(s) for s in seqs)
    input_ids = torch.full((batch_size, seq_len), endoftext_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, s in enumerate(seqs):
        input_ids[i, : len(s)] = torch.tensor(s)
        attention_mask[i, : len(s)] = 1
    return [input_ids, attention_mask, input_features, feature_attention_mask]


def get_init_inputs():
    # Qwen/Qwen2-Audio-7B config.json. Kept: audio 128 mel bins, gelu, scale_embedding False, dropouts 0,
    # initializer_range 0.02; text silu, rms_norm_eps 1e-5, rope_theta 10000, max_position_embeddings 8192,
    # no sliding window (use_sliding_window False; sliding_window 32768), untied LM head, bos 151643 / eos 151645
    # (-> 1000 / 1002).
    audio_config = Qwen2AudioEncoderConfig(
        num_mel_bins=num_mel_bins,
        encoder_layers=2,  # published 32
        encoder_attention_heads=4,  # published 20
        encoder_ffn_dim=256,  # published 5120
        d_model=64,  # published 1280
        dropout=0.0,
        attention_dropout=0.0,
        activation_function="gelu",
        activation_dropout=0.0,
        scale_embedding=False,
        initializer_range=0.02,
        max_source_positions=max_source_positions,  # published 1500
    )
    text_config = Qwen2Config(
        vocab_size=vocab_size,  # published 156032
        hidden_size=128,  # published 4096
        intermediate_size=344,  # published 11008
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        hidden_act="silu",
        max_position_embeddings=8192,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        use_sliding_window=False,
        sliding_window=32768,
        tie_word_embeddings=False,
        bos_token_id=endoftext_id,  # published 151643
        eos_token_id=im_end_id,  # published 151645
        pad_token_id=endoftext_id,
    )
    return [Qwen2AudioConfig(
        audio_config=audio_config,
        text_config=text_config,
        audio_token_index=audio_token_id,  # published 151646
    )]
