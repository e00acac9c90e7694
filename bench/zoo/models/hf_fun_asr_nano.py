"""Fun-ASR-Nano (`FunAudioLLM/Fun-ASR-Nano-2512-hf`), shrunk: an LLM-based speech recogniser made of a SenseVoice
SAN-M audio encoder, a Transformer adaptor and a Qwen3 decoder LM. The audio tower reads low-frame-rate features
(7 consecutive 80-bin fbank frames stacked into one 560-wide vector), scales them by sqrt(hidden) and adds a
sinusoidal table counted from position 1; its blocks are pre-LayerNorm SAN-M layers: bidirectional multi-head
attention under the padding mask, plus an FSMN memory branch on the unsplit value projection (values zeroed at
padded frames, a depthwise Conv1d of kernel 11 with 5 + 5 zero padding, plus the values themselves) added to the
attention output; a ReLU MLP. The first block has no attention residual (its input is 560 wide, the blocks 64
wide); only the last transcription block and the last timestamp block end in a LayerNorm. The projector is a
Linear-ReLU-Linear into the LM width followed by adaptor Transformer layers (the same layer class without the
FSMN). The valid frames of every sample (a boolean-mask gather, flattened over the batch) are scattered into the
LM's input embeddings at the audio placeholder tokens (masked_scatter), and the Qwen3 decoder (q/k RMSNorm, RoPE,
GQA, SwiGLU, causal mask with padding) and the tied LM head give the logits.

FunAsrNanoForConditionalGeneration, sdpa attention.
Shrunk: encoder hidden 512 -> 64 with 70 layers (20 of them timestamp layers) -> 4 (1), 4 heads kept, intermediate
2048 -> 128; projector hidden 2048 -> 128, adaptor hidden 1024 -> 64 (intermediate hidden / 4 kept, 2 layers
kept); Qwen3 hidden 1024 -> 64, 28 layers -> 2, 16 heads (8 kv) -> 4 (2) of head_dim 16, intermediate 3072 -> 192,
vocab 151k -> 1000 (audio token 151646 -> 998).
Kept: 80 mel bins x 7 stacked frames, FSMN kernel 11, ReLU, layer_norm_eps 1e-5, sinusoidal max timescale 1e4,
the adaptor's own 2 layers, tied word embeddings, rope theta 1e6, rms_norm_eps 1e-6.
Inputs: input_features (2, 24, 560) with input_features_mask (2, 24) (the second clip has 20 valid frames);
input_ids (2, 32): 4 prompt tokens, one audio placeholder per valid frame (24 and 20), 4 text tokens, the second
sample right-padded by 4; attention_mask (2, 32). Output: LM logits (2, 32, 1000).
"""
import torch
from torch import nn
from transformers import FunAsrNanoConfig, FunAsrNanoForConditionalGeneration

batch_size = 2
num_frames = 24
seq_len = 32
vocab_size = 1000
audio_token_id = 998
pad_token_id = 999
prompt_len = 4


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        config._attn_implementation = "sdpa"
        self.model = FunAsrNanoForConditionalGeneration(config)

    def forward(self, input_ids, input_features, input_features_mask, attention_mask):
        return self.model(
            input_ids=input_ids,
            input_features=input_features,
            input_features_mask=input_features_mask,
            attention_mask=attention_mask,
            use_cache=False,
        ).logits


def get_inputs():
    valid = [num_frames, num_frames - 4]
    input_features = torch.randn(batch_size, num_frames, 80 * 7)
    input_features_mask = torch.zeros(batch_size, num_frames, dtype=torch.long)
    input_ids = torch.full((batch_size, seq_len), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for b, n in enumerate(valid):
        input_features_mask[b, :n] = 1
        input_features[b, n:] = 0.0
        length = prompt_len + n + 4
        input_ids[b, :length] = torch.randint(0, audio_token_id, (length,))
        input_ids[b, prompt_len:prompt_len + n] = audio_token_id
        attention_mask[b, :length] = 1
    return [input_ids, input_features, input_features_mask, attention_mask]


def get_init_inputs():
    return [FunAsrNanoConfig(
        audio_config={
            "model_type": "fun_asr_nano_encoder",
            "num_mel_bins": 80,
            "num_stacked_frames": 7,
            "hidden_size": 64,  # published 512
            "num_attention_heads": 4,
            "intermediate_size": 128,  # published 2048
            "num_hidden_layers": 4,  # published 70
            "num_timestamp_prediction_layers": 1,  # published 20
            "fsmn_kernel_size": 11,
            "max_position_embeddings": 2049,
        },
        adaptor_config={
            "hidden_size": 64,  # published 1024 (= the LM width)
            "num_attention_heads": 4,  # published 8
            "intermediate_size": 16,  # published 256 (= LM width / 4)
            "num_hidden_layers": 2,
            "projector_hidden_size": 128,  # published 2048
        },
        text_config={
            "model_type": "qwen3",
            "vocab_size": vocab_size,  # published 151936
            "hidden_size": 64,  # published 1024
            "intermediate_size": 192,  # published 3072
            "num_hidden_layers": 2,  # published 28
            "num_attention_heads": 4,  # published 16
            "num_key_value_heads": 2,  # published 8
            "head_dim": 16,  # published 128
            "max_position_embeddings": 40960,
            "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0},  # Qwen3-0.6B's
            "tie_word_embeddings": True,
            "pad_token_id": pad_token_id,
        },
        audio_token_id=audio_token_id,
    )]
