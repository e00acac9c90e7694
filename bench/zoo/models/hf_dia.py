"""Dia text-to-dialogue speech model (byte-level text encoder; decoder over 9 parallel DAC codebook streams, each
delayed by its own offset, summed per frame from one offset embedding table; GQA self-attention, cross-attention,
RoPE, RMSNorm, gated SiLU MLPs; one logit head per codebook), after `nari-labs/Dia-1.6B-0626`, shrunk.
DiaForConditionalGeneration, run with teacher forcing; output: logits (2 * 9, 24, 1028).
"""
import torch
from torch import nn
from transformers import DiaConfig, DiaDecoderConfig, DiaEncoderConfig, DiaForConditionalGeneration

batch_size = 2
seq_len = 24  # text bytes
text_lens = [24, 17]
audio_frames = [8, 5]  # DAC frames per sample
num_channels = 9
delay_pattern = [0, 8, 9, 10, 11, 12, 13, 14, 15]
audio_vocab = 1028  # 1024 DAC codes + eos 1024, pad 1025, bos 1026
eos_id, pad_id, bos_id = 1024, 1025, 1026


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DiaForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids, decoder_attention_mask):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            decoder_input_ids=decoder_input_ids,
            decoder_attention_mask=decoder_attention_mask,
            use_cache=False,
        ).logits


def get_inputs():
    # text: UTF-8 bytes of "[S1] ... [S2] ...", right-padded with 0
    input_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, n in enumerate(text_lens):
        input_ids[i, :n] = torch.randint(32, 127, (n,))
        attention_mask[i, :n] = 1
    # audio, as DiaProcessor builds it for training: [bos] codes [eos], left-padded with bos, then delayed per channel
    max_delay, max_frames = max(delay_pattern), max(audio_frames)
    total = max_frames + 2 + max_delay
    prefill = torch.full((batch_size, total, num_channels), pad_id)
    decoder_attention_mask = torch.zeros(batch_size, total, dtype=torch.long)
    for i, n in enumerate(audio_frames):
        pad_len = max_frames - n
        prefill[i, : pad_len + 1] = bos_id
        prefill[i, pad_len + 1: max_frames + 1] = torch.randint(0, 1024, (n, num_channels))
        prefill[i, max_frames + 1] = eos_id
        decoder_attention_mask[i, pad_len:] = 1
    t = torch.arange(total)[:, None] - torch.tensor(delay_pattern)[None, :]  # source frame per (frame, channel)
    delayed = prefill.gather(1, t.clamp(0, total - 1)[None].expand(batch_size, -1, -1))
    delayed = torch.where(t[None] < 0, bos_id, delayed)
    return [input_ids, attention_mask, delayed[:, :-1].contiguous(), decoder_attention_mask[:, :-1].contiguous()]


def get_init_inputs():
    # Kept: byte vocab 256, audio vocab 1028, 9 codebooks and the delay pattern, GQA 4:1 in decoder self-attention,
    # silu gated MLPs, norm_eps 1e-5, RoPE defaults.
    encoder_config = DiaEncoderConfig(
        hidden_size=64,  # published 1024
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 16
        num_key_value_heads=4,  # published 16
        head_dim=16,  # published 128
        intermediate_size=256,  # published 4096
        max_position_embeddings=1024,
        vocab_size=256,
    )
    decoder_config = DiaDecoderConfig(
        hidden_size=128,  # published 2048
        num_hidden_layers=2,  # published 18
        num_attention_heads=4,  # published 16
        num_key_value_heads=1,  # published 4
        head_dim=32,  # published 128
        cross_num_attention_heads=4,  # published 16
        cross_num_key_value_heads=4,  # published 16
        cross_head_dim=16,  # published 128
        cross_hidden_size=64,  # published 1024 (= encoder hidden)
        intermediate_size=512,  # published 8192
        max_position_embeddings=3072,
        vocab_size=audio_vocab,
        num_channels=num_channels,
        pad_token_id=pad_id,
        eos_token_id=eos_id,
        bos_token_id=bos_id,
    )
    return [DiaConfig(encoder_config=encoder_config, decoder_config=decoder_config, delay_pattern=delay_pattern)]
