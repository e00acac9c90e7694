"""Sesame CSM (Conversational Speech Model), after `sesame/csm-1b`, shrunk.

CsmForConditionalGeneration, run as the processor prepares a conversation for training (`output_labels=True`), so
that all three parts run:
- the Mimi codec (Kyutai's streaming speech tokenizer: causal SEANet conv encoder, a streaming sliding-window
  transformer, a split residual vector quantizer with 1 semantic + 31 acoustic codebooks) turns each audio turn into
  12.5 Hz frames of 32 codes; the `<|AUDIO|>` placeholders in the token sequence are replaced by the frames'
  embeddings (sum over the 32 codebooks of per-codebook embedding tables), `<|audio_eos|>` by the embedding of an
  all-zero (codebook eos) frame;
- the backbone, a Llama-3.2-style decoder (RMSNorm, GQA, SwiGLU, llama3-scaled RoPE) over the interleaved text tokens
  and audio frames, whose `lm_head` predicts codebook 0 of the next frame (`logits`);
- the depth decoder, a second small Llama-style decoder run per audio frame over 32 positions: position 0 is the
  backbone's hidden state at the position before the frame (the one that predicted its codebook 0), positions 1..31
  the embeddings of codes 0..30 (the codebook table shared with the backbone), all projected down to the depth
  decoder's width; a separate head per position (CsmCodebooksHead) predicts codebooks 1..31 (`depth_decoder_logits`).

Published sesame/csm-1b: backbone hidden 2048, 16 layers, 32 heads / 8 KV heads (head_dim 64), intermediate 8192,
text vocab 128256, max_position_embeddings 2048; depth decoder hidden 1024, 4 layers, 8 heads / 2 KV heads,
intermediate 8192, max_position_embeddings 33; 32 codebooks of 2051 entries (2048 codes + specials); rope theta 5e5
with llama3 scaling, written (as in the conversion script) as factor 32 / low 0.125 / high 0.5 / original 1024 for
the backbone and factor 32 / low 0.001953125 / high 0.0078125 / original 16 for the depth decoder; the kyutai/mimi
codec.
Shrunk: backbone hidden 2048 -> 128, 16 layers -> 2, 32 heads -> 4 (head_dim 64 -> 32), 8 KV heads -> 2 (GQA, 2
query heads per KV head instead of 4), intermediate 8192 -> 512, text vocab 128256 -> 1024 (the special tokens
128000..128003 moved to 1000..1003); depth decoder hidden 1024 -> 64, 4 layers -> 2, 8 heads -> 4, 2 KV heads -> 1
(4 query heads per KV head as published), intermediate 8192 -> 256; Mimi as in this zoo's Mimi entry (hidden
512 -> 64, num_filters 64 -> 8, transformer 8 -> 2 layers, codebook_dim 256 -> 32, sliding_window 250 -> 16).
Kept: 32 codebooks x 2051 entries, tied codebook embeddings, rope settings, max positions, rms_norm_eps 1e-5, silu.
Random init leaves every Mimi codebook at zero (each frame would be all code 0): Model.__init__ stands in for trained
codebooks as in the Mimi entry of this zoo (k-means-style draw from encoded probe audio).
Inputs (as CsmProcessor returns them, padding on the LEFT as its text kwargs set): input_ids (2, 32) =
<bos>[speaker]text<eos> then one <|AUDIO|> per codec frame and <|audio_eos|> (the chat template of one turn with text
and audio); sample 0 (speaker 0) has 13 text tokens and 1.28 s of audio (16 frames), sample 1 (speaker 1) has 8 text
tokens and 0.8 s of audio (10 frames), and 11 pad tokens (<eos>) on the left;
input_values (2, 1, 30720): each sample's audio at 24 kHz, the second zero-padded on the right; input_values_cutoffs
(2, 1): end of each sample's audio; attention_mask (2, 32); labels (2, 32): the audio and audio-eos positions keep
their token id, all others -100 (depth_decoder_labels_ratio 1.0: every frame trains the depth decoder).
Outputs: backbone logits (2, 32, 2051) and depth decoder logits (28 frames, 31, 2051).
"""
import torch
from torch import nn
from transformers import CsmConfig, CsmDepthDecoderConfig, CsmForConditionalGeneration, MimiConfig

batch_size = 2
sampling_rate = 24000
frame_size = 1920  # 24 kHz / 12.5 Hz
audio_frames = (16, 10)  # 1.28 s and 0.8 s of audio
text_tokens = (13, 8)  # "[", speaker id, "]" and the words, between <bos> and <eos>
bracket_open, digit_zero, bracket_close = 58, 15, 60  # "[", "0", "]" in the Llama-3 tokenizer
num_codebooks = 32
text_vocab_size = 1024
bos_id, eos_id, audio_id, audio_eos_id = 1000, 1001, 1002, 1003  # published 128000..128003
seq_len = max(1 + t + 1 + f + 1 for t, f in zip(text_tokens, audio_frames))  # 32


def _stand_in_codebooks(codec, config, num_samples):
    # Random init leaves every Mimi codebook at zero. Draw each stage's codewords from the frames it sees when a
    # probe batch of random audio is encoded (the projected latents, then the residuals of the earlier stages), plus
    # a little noise, as codec training starts them (k-means init on the first batch).
    with torch.no_grad():
        probe = torch.randn(8, config.audio_channels, num_samples) * 0.1
        latents = codec.encoder(probe).latents
        quantizer = codec.quantizer
        for rvq in (quantizer.semantic_residual_vector_quantizer, quantizer.acoustic_residual_vector_quantizer):
            residual = rvq.input_proj(latents) if rvq.input_proj is not None else latents
            for layer in rvq.layers:
                frames = residual.transpose(1, 2).reshape(-1, residual.shape[1])
                pick = torch.randint(0, frames.shape[0], (config.codebook_size,))
                embed = frames[pick] + 0.5 * frames.std(0) * torch.randn(config.codebook_size, frames.shape[1])
                layer.codebook.embed_sum.copy_(embed)  # cluster_usage stays 1: embed = embed_sum
                layer.codebook._embed = None  # drop the cached (zero) codebook
                residual = residual - layer.decode(layer.encode(residual))


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CsmForConditionalGeneration(config)
        _stand_in_codebooks(self.model.codec_model, config.codec_config, 2 * max(audio_frames) * frame_size)

    def forward(self, input_ids, input_values, input_values_cutoffs, attention_mask, labels):
        out = self.model(
            input_ids=input_ids,
            input_values=input_values,
            input_values_cutoffs=input_values_cutoffs,
            attention_mask=attention_mask,
            labels=labels,
        )
        return out.logits, out.depth_decoder_logits


def get_inputs():
    rows, masks, audios = [], [], []
    for speaker, (n_text, n_frames) in enumerate(zip(text_tokens, audio_frames)):
        text = [bracket_open, digit_zero + speaker, bracket_close] + torch.randint(100, 1000, (n_text - 3,)).tolist()
        row = [bos_id] + text + [eos_id] + [audio_id] * n_frames + [audio_eos_id]
        pad = seq_len - len(row)
        rows.append([eos_id] * pad + row)  # the tokenizer pads with <eos> (128001), on the left
        masks.append([0] * pad + [1] * len(row))
        audios.append(torch.randn(n_frames * frame_size) * 0.1)  # raw 24 kHz waveform in [-1, 1]
    input_ids = torch.tensor(rows)
    attention_mask = torch.tensor(masks)
    max_samples = max(a.numel() for a in audios)
    input_values = torch.zeros(batch_size, 1, max_samples)  # the feature extractor right-pads with zeros
    for i, a in enumerate(audios):
        input_values[i, 0, : a.numel()] = a
    input_values_cutoffs = torch.tensor([[a.numel()] for a in audios])  # one audio turn per sample
    labels = torch.where((input_ids == audio_id) | (input_ids == audio_eos_id), input_ids, -100)
    return [input_ids, input_values, input_values_cutoffs, attention_mask, labels]


def get_init_inputs():
    # sesame/csm-1b config.json. Kept: 32 codebooks, codebook vocab 2051 (pad 2050, eos 0), tie_codebooks_embeddings,
    # silu, rms_norm_eps 1e-5, max_position_embeddings 2048 / 33, rope theta 5e5 with the converted llama3 scaling,
    # no attention / mlp bias.
    codec_config = MimiConfig(  # kyutai/mimi, shrunk as in this zoo's Mimi entry
        hidden_size=64,  # published 512
        num_filters=8,  # published 64
        codebook_dim=32,  # published 256
        vector_quantization_hidden_dimension=32,  # published 256
        upsample_groups=64,  # published 512
        num_hidden_layers=2,  # published 8
        intermediate_size=256,  # published 2048
        num_attention_heads=4,  # published 8
        num_key_value_heads=4,  # published 8
        head_dim=16,  # published 64
        sliding_window=16,  # published 250
        num_quantizers=num_codebooks,
    )
    depth_decoder_config = CsmDepthDecoderConfig(
        num_codebooks=num_codebooks,
        backbone_hidden_size=128,  # published 2048
        vocab_size=2051,
        hidden_size=64,  # published 1024
        intermediate_size=256,  # published 8192
        num_hidden_layers=2,  # published 4
        num_attention_heads=4,  # published 8
        num_key_value_heads=1,  # published 2
        max_position_embeddings=33,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0,
                         "high_freq_factor": 0.0078125, "low_freq_factor": 0.001953125,
                         "original_max_position_embeddings": 16},
    )
    return [CsmConfig(
        num_codebooks=num_codebooks,
        vocab_size=2051,
        text_vocab_size=text_vocab_size,  # published 128256
        hidden_size=128,  # published 2048
        intermediate_size=512,  # published 8192
        num_hidden_layers=2,  # published 16
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        max_position_embeddings=2048,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0,
                         "high_freq_factor": 0.5, "low_freq_factor": 0.125,
                         "original_max_position_embeddings": 1024},
        bos_token_id=bos_id,  # published 128000
        pad_token_id=audio_id,  # published 128002
        audio_token_id=audio_id,  # published 128002
        audio_eos_token_id=audio_eos_id,  # published 128003
        codebook_pad_token_id=2050,
        codebook_eos_token_id=0,
        tie_codebooks_embeddings=True,
        depth_decoder_config=depth_decoder_config,
        codec_config=codec_config,
    )]
