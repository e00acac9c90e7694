"""Perception Encoder Audio-Visual (Meta PE-AV, `facebook/pe-av-large`, PeAudioVideoModel), shrunk: a tri-modal
contrastive model that embeds text, audio, video and their combinations into one space and returns all the pairwise
similarity logits. Text: a ModernBERT encoder (alternating global / sliding-window attention, RoPE, GeGLU), the first
token's last hidden state, fed to several per-pair LayerNorm + Linear heads. Audio encoder: a DAC convolutional
encoder (Snake activations, strided residual conv blocks; hop = prod(downsampling ratios)) run as a frozen feature
extractor, a 1 x 1 bottleneck conv to the codebook width, a linear data projection, then a learned class token is
prepended, a 1-D ResNet block (masked GroupNorm, SiLU, k-3 convs) mixes neighbouring frames, and Qwen3-style
bidirectional transformer layers (RMSNorm, q / k RMSNorm, RoPE theta 2e4, SwiGLU) run over the frames; the class token
is the clip embedding. Video encoder: every frame goes through a PE-Core ViT (timm `vit_pe_core_*`: 2-D RoPE
attention, pre-transformer norm, attention-pooled "map" head to a feature vector), the per-frame features are
L2-normalised, projected, and a transformer of the same kind (class token, ResNet block, bidirectional RoPE layers)
runs over time. Audio-video fusion encoder: the video features (1 x 1 conv + LayerNorm) are nearest-neighbour
resampled along time to the audio frame rate, concatenated with the audio features channel-wise, projected, and a
third transformer (class token + ResNet block + RoPE layers) fuses them. Heads: audio, video, audio-video, text (one
per target modality), audio+text and video+text (concatenated embeddings); the forward returns the six similarity
matrices (embedding products scaled and shifted by learned logit scale / bias, SigLIP-style).

Shrunk (from the PeAudioVideoConfig defaults): every PE transformer (audio, video, fusion) hidden 1792 -> 64, 6 layers
-> 2, 14 heads of 128 -> 4 of 16, intermediate 4800 -> 128; DAC encoder hidden 64 -> 8 (channels 8 -> 128 over the
blocks instead of 64 -> 1024), ratios (2, 8, 10, 12) -> (2, 4, 5, 8) (hop 1920 -> 320), codebook_dim 128 -> 32;
frame ViT `vit_pe_core_large_patch14_336` kept as the architecture with width 1024 -> 32, depth 24 -> 2, heads 16 ->
2, image 336 -> 56 (grid 24 -> 4, RoPE reference grid likewise), 1024 output features -> 32; text ModernBERT hidden
1024 -> 64, 22 layers -> 3 (global every 3rd, local window 128 -> 8), 16 heads -> 4, intermediate 2624 -> 128, vocab
50368 -> 1000.
Inputs: input_ids (2, 16); a video of 4 frames (2, 4, 3, 56, 56); mono audio (2, 1, 6400) (20 DAC frames, so the 4
video frames are resampled 5x along time). Outputs: logits (2, 2) for audio-text, video-text, audio-video,
audio_video-text, audio_plus_text-video and video_plus_text-audio.
"""
import torch
from torch import nn
from transformers import PeAudioVideoConfig, PeAudioVideoModel

batch_size = 2
seq_len = 16
vocab_size = 1000
num_frames = 4
image_size = 56
num_samples = 6400  # 20 DAC frames at hop 320


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PeAudioVideoModel(config)

    def forward(self, input_ids, pixel_values_videos, input_values):
        out = self.model(input_ids=input_ids, pixel_values_videos=pixel_values_videos, input_values=input_values)
        return (out.logits_audio_text, out.logits_video_text, out.logits_audio_video, out.logits_audio_video_text,
                out.logits_audio_plus_text_video, out.logits_video_plus_text_audio)


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 1  # [CLS]
    input_ids[:, -1] = 2  # [SEP]
    pixel_values_videos = torch.randn(batch_size, num_frames, 3, image_size, image_size)
    input_values = 0.1 * torch.randn(batch_size, 1, num_samples)
    return [input_ids, pixel_values_videos, input_values]


def get_init_inputs():
    # facebook/pe-av-large (the PeAudioVideoConfig defaults), shrunk where commented.
    encoder = dict(
        hidden_size=64,  # published 1792
        intermediate_size=128,  # published 4800
        num_hidden_layers=2,  # published 6
        num_attention_heads=4,  # published 14
        head_dim=16,  # published 128
    )
    audio_config = dict(encoder, dac_config=dict(
        downsampling_ratios=[2, 4, 5, 8],  # published [2, 8, 10, 12]
        encoder_hidden_size=8,  # published 64
        codebook_dim=32,  # published 128
    ))
    video_config = dict(encoder, vision_config=dict(
        architecture="vit_pe_core_large_patch14_336",
        do_pooling=True,
        global_pool="map",
        num_labels=32,  # published 1024 (num_classes)
        model_args=dict(
            img_size=image_size,  # published 336
            embed_dim=32,  # published 1024
            depth=2,  # published 24
            num_heads=2,  # published 16
            ref_feat_shape=(4, 4),  # published (24, 24)
        ),
    ))
    text_config = dict(
        vocab_size=vocab_size,  # published 50368
        hidden_size=64,  # published 1024
        intermediate_size=128,  # published 2624
        num_hidden_layers=3,  # published 22
        num_attention_heads=4,  # published 16
        local_attention=8,  # published 128
        pad_token_id=0,
        cls_token_id=1,
        sep_token_id=2,
        bos_token_id=1,
        eos_token_id=2,
    )
    return [PeAudioVideoConfig(text_config=text_config, audio_video_config=dict(
        encoder, audio_config=audio_config, video_config=video_config))]
