"""Kyutai STT (delayed-streams speech-to-text: Moshi-style decoder over a text stream and 32 audio-codebook streams),
after `kyutai/stt-2.6b-en` (its transformers port `kyutai/stt-2.6b-en-trfs`), shrunk.

KyutaiSpeechToTextForConditionalGeneration plus its Mimi codec, run as one teacher-forced pass over a whole clip:
- the Mimi codec (causal SEANet conv encoder, streaming sliding-window transformer with RoPE and LayerScale, strided
  conv 25 -> 12.5 Hz, split RVQ: 1 semantic + 31 acoustic codebooks of 2048 codes) turns the 24 kHz waveform into
  12.5 Hz frames of 32 codes (as generate() does, under no_grad);
- each decoder position t sums 33 embeddings from one table: the text token of step t (the transcript stream: word
  pieces where words are emitted, the text pad id 3 elsewhere) and the 32 codes of audio frame t - 1, each codebook
  offset into its own slice of the table (position 0 carries the text <bos> 48000 and the audio <bos> 2048 in every
  codebook);
- a decoder of pre-RMSNorm (eps 1e-8) layers: causal multi-head attention with RoPE (theta 1e5) and a gated SiLU MLP
  (one fc1 to ffn_dim, split in two halves, silu(a) * b, fc2 from ffn_dim / 2), then an untied text head over the
  4001-entry text vocab (logits of the next text token).
Published kyutai/stt-2.6b-en-trfs: hidden 2048, 48 layers, 32 heads (head_dim 64), ffn_dim 11264, text vocab 4001,
32 codebooks x 2049 (2048 codes + audio bos), max_position_embeddings 750, sliding_window 375 (used by the generation
cache only; a full forward is plainly causal), the kyutai/mimi codec with sliding_window 250.
Shrunk: hidden 2048 -> 256, 48 layers -> 2, 32 heads -> 4 (head_dim 64 kept), ffn_dim 11264 -> 1408 (ratio 5.5 kept);
Mimi as in this zoo's Mimi entry (hidden 512 -> 64, num_filters 64 -> 8, transformer 8 -> 2 layers, 8 heads -> 4,
codebook_dim 256 -> 32, sliding_window 250 -> 16). Kept: vocab 4001, 32 x 2049 codebook entries (embedding table
4001 + 32 * 2049 + 1 = 69570 rows, the last the audio pad row 69569), text pad 3, bos 48000, audio bos 2048, rope
theta 1e5, rms_norm_eps 1e-8, 750 positions.
Random init leaves every Mimi codebook at zero (each frame would be all code 0): Model.__init__ stands in for trained
codebooks as in the Mimi entry of this zoo (k-means-style draw from encoded probe audio).
Inputs: input_values (2, 1, 30720), 1.28 s of 24 kHz mono audio as the feature extractor pads a batch (the second
clip is 0.8 s of speech, zero-padded on the right; the model, like generate(), ignores padding_mask and runs over
every frame, so none is passed); input_ids (2, 17): the text stream, <bos> then one token per audio frame (16 frames).
Output: text logits (2, 17, 4001).
"""
import torch
from torch import nn
from transformers import KyutaiSpeechToTextConfig, KyutaiSpeechToTextForConditionalGeneration, MimiConfig

batch_size = 2
sampling_rate = 24000
frame_size = 1920  # 24 kHz / 12.5 Hz
num_frames = 16  # 1.28 s
num_samples = num_frames * frame_size  # 30720
speech_samples = (30720, 19200)  # 1.28 s and 0.8 s of speech
vocab_size = 4001
text_pad_id, text_bos_id, audio_bos_id = 3, 48000, 2048


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
        self.model = KyutaiSpeechToTextForConditionalGeneration(config)
        _stand_in_codebooks(self.model.codec_model, config.codec_config, 2 * num_samples)

    def forward(self, input_values, input_ids):
        # What generate() feeds the decoder, for all frames at once: position t gets text token t and the codes of
        # audio frame t - 1 (the audio bos at position 0).
        with torch.no_grad():
            audio_codes = self.model.codec_model.encode(input_values).audio_codes  # (batch, 32, frames)
        audio_codes = audio_codes.transpose(1, 2)
        audio_bos = torch.full_like(audio_codes[:, :1], self.model.config.audio_bos_token_id)
        audio_tokens = torch.cat([audio_bos, audio_codes], dim=1)[:, : input_ids.shape[1]]
        tokens = torch.cat([input_ids.unsqueeze(2), audio_tokens], dim=2)  # (batch, 1 + frames, 33)
        return self.model(input_ids=tokens).logits


def get_inputs():
    input_values = torch.zeros(batch_size, 1, num_samples)
    for i, n in enumerate(speech_samples):
        input_values[i, 0, :n] = torch.randn(n) * 0.1  # raw waveform in [-1, 1]; the rest zero padding
    # transcript stream: <bos>, then the text pad id except at the steps where a word piece is emitted
    input_ids = torch.full((batch_size, 1 + num_frames), text_pad_id)
    input_ids[:, 0] = text_bos_id
    input_ids[0, [3, 4, 7, 10, 11, 14]] = torch.randint(4, vocab_size - 1, (6,))
    input_ids[1, [4, 6, 9]] = torch.randint(4, vocab_size - 1, (3,))
    return [input_values, input_ids]


def get_init_inputs():
    # kyutai/stt-2.6b-en-trfs config.json (= KyutaiSpeechToTextConfig defaults, rope theta 1e5, codec sliding window
    # 250). Kept: silu, no KV grouping, rms_norm_eps 1e-8, untied text head, max_position_embeddings 750.
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
        num_quantizers=32,
    )
    return [KyutaiSpeechToTextConfig(
        codebook_vocab_size=2049,
        vocab_size=vocab_size,
        hidden_size=256,  # published 2048
        num_hidden_layers=2,  # published 48
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32 (= heads)
        ffn_dim=1408,  # published 11264
        max_position_embeddings=750,
        sliding_window=375,
        rope_parameters={"rope_type": "default", "rope_theta": 100000.0},
        hidden_act="silu",
        rms_norm_eps=1e-8,
        num_codebooks=32,
        audio_bos_token_id=audio_bos_id,
        audio_pad_token_id=vocab_size + 32 * 2049,  # 69569
        pad_token_id=text_pad_id,
        bos_token_id=text_bos_id,
        tie_word_embeddings=False,
        codec_config=codec_config,
    )]
