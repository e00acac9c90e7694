"""Whisper encoder-decoder (2 conv layers + sinusoidal positions + pre-LN encoder over the log-mel spectrogram;
decoder with learned positions, causal self-attention and cross-attention to the encoder, LM head tied to the
token embedding), after `openai/whisper-tiny`, shrunk.

Shrunk: d_model 384 -> 128, 4+4 layers -> 2+2, 6 heads -> 2 (head_dim 64 kept), ffn 1536 -> 512,
vocab 51865 -> 1000 (the special tokens moved to the top of the small vocab: <|endoftext|> 50257 -> 950,
<|startoftranscript|> 50258 -> 951, <|en|> 50259 -> 952, <|transcribe|> 50359 -> 953, <|notimestamps|>
50363 -> 954), max_source_positions 1500 -> 100 (so the encoder takes 200 frames = 2 s instead of 3000 = 30 s).
80 mel bins kept. Inputs: input_features (2, 80, 200), decoder_input_ids (2, 16) = the 4-token
transcription prompt + 12 text tokens. Output: LM logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import WhisperConfig, WhisperForConditionalGeneration

batch_size = 2
num_mel_bins = 80
max_source_positions = 100
num_frames = 2 * max_source_positions  # the conv stem halves the frames
decoder_len = 16
vocab_size = 1000
eot, sot, lang_en, transcribe, notimestamps = 950, 951, 952, 953, 954


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = WhisperForConditionalGeneration(config)

    def forward(self, input_features, decoder_input_ids):
        return self.model(input_features=input_features, decoder_input_ids=decoder_input_ids).logits


def get_inputs():
    input_features = torch.randn(batch_size, num_mel_bins, num_frames)
    prompt = torch.tensor([sot, lang_en, transcribe, notimestamps]).expand(batch_size, 4)
    text = torch.randint(0, eot, (batch_size, decoder_len - 4))
    decoder_input_ids = torch.cat([prompt, text], dim=1)
    return [input_features, decoder_input_ids]


def get_init_inputs():
    # openai/whisper-tiny config.json. Kept: gelu, pre-LN, no embedding scaling, max_target_positions 448,
    # tied LM head, no dropout, 80 mel bins.
    return [WhisperConfig(
        vocab_size=vocab_size,  # published 51865
        num_mel_bins=num_mel_bins,
        d_model=128,  # published 384
        encoder_layers=2,  # published 4
        decoder_layers=2,  # published 4
        encoder_attention_heads=2,  # published 6
        decoder_attention_heads=2,  # published 6
        encoder_ffn_dim=512,  # published 1536
        decoder_ffn_dim=512,  # published 1536
        max_source_positions=max_source_positions,  # published 1500
        max_target_positions=448,
        activation_function="gelu",
        scale_embedding=False,
        tie_word_embeddings=True,
        pad_token_id=eot,  # published 50257
        bos_token_id=eot,  # published 50257
        eos_token_id=eot,  # published 50257
        decoder_start_token_id=sot,  # published 50258
    )]
