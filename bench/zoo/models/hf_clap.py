"""CLAP contrastive audio-text model: an HTSAT audio tower (BatchNorm over mel bins, the log-mel spectrogram
bicubically stretched to spec_size * freq_ratio frames and folded into a square image of freq_ratio stacked time
crops, a Swin Transformer of 4 stages (4 x 4 patch embedding + LayerNorm, shifted-window attention with relative
position bias, patch merging between stages), then a token-semantic regrouping of the last feature map by
frequency group and an average pool), a RoBERTa text tower (learned positions offset past the pad id, [CLS] tanh
pooler), a 2-layer ReLU projection per tower, L2-normalised embeddings and separate learned temperatures for the
two logit directions), after `laion/clap-htsat-unfused`, shrunk.

ClapModel (unfused: enable_fusion false, so the feature-fusion branch and is_longer are unused).
Shrunk audio: Swin stage widths 96-192-384-768 -> 16-32-64-128 (hidden 768 -> 128), depths (2, 2, 6, 2) ->
(2, 2, 2, 2), heads (4, 8, 16, 32) -> (2, 4, 8, 16) (head_dim 24 -> 8). Kept: the input geometry (64 mel bins,
spec_size 256, so freq_ratio 4 and the 1024-frame stretch folded into a 256 x 256 image; a smaller spec_size would
leave the last stage narrower than the 8-wide window or with fewer frequency rows than the 4 regrouping bins),
patch 4 / stride 4 (a 64 x 64 token grid), window 8, mlp_ratio 4, qkv bias, patch LayerNorm, 4 stages.
Shrunk text: hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head_dim 64 -> 32), intermediate 3072 -> 512,
vocab 50265 -> 1000. Projection dim 512 -> 64 (both towers).
Inputs as ClapProcessor returns them: input_ids (2, 32) as <s> ... </s> with the second caption right-padded by 9
tokens (<s> 0, <pad> 1, </s> 2), its attention_mask, and input_features (2, 1, 101, 64): log-mel power in dB of
1 s of 48 kHz audio at hop 480 (the extractor repeat-pads clips to max_length_s, published 10 s = 1001 frames,
here 1 s). Output: (logits_per_audio (2, 2), logits_per_text (2, 2)).
On a freshly built model the two captions' text embeddings are nearly parallel (cosine ~0.999: the [CLS]-pooled
output of a random RoBERTa is dominated by the shared <s> embedding), so each logit row varies little across
captions; the audio embeddings differ per clip after the BatchNorm-stats fix in Model.__init__.
"""
import torch
from torch import nn
from transformers import ClapAudioConfig, ClapConfig, ClapModel, ClapTextConfig

batch_size = 2
seq_len = 32
vocab_size = 1000
num_frames = 101  # 1 s at 48 kHz, hop 480 (published max_length_s 10 -> 1001 frames)
num_mel_bins = 64
bos_id, pad_id, eos_id = 0, 1, 2
num_pad = 9


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ClapModel(config)
        # The audio tower first normalises each mel bin with a BatchNorm whose running stats a fresh build leaves at
        # mean 0 / var 1, so the dB features (around -40 dB) would reach the patch embedding as a shared large
        # offset and every clip would embed alike (audio-audio cosine 0.9995). Stand in for trained statistics
        # with those of the inputs below (mean -40 dB, std 10 dB).
        with torch.no_grad():
            self.model.audio_model.audio_encoder.batch_norm.running_mean.fill_(-40.0)
            self.model.audio_model.audio_encoder.batch_norm.running_var.fill_(100.0)

    def forward(self, input_ids, attention_mask, input_features):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, input_features=input_features)
        return out.logits_per_audio, out.logits_per_text


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, 0] = bos_id
    input_ids[0, -1] = eos_id
    input_ids[1, -num_pad - 1] = eos_id
    input_ids[1, -num_pad:] = pad_id
    attention_mask[1, -num_pad:] = 0
    input_features = torch.randn(batch_size, 1, num_frames, num_mel_bins) * 10.0 - 40.0  # dB
    return [input_ids, attention_mask, input_features]


def get_init_inputs():
    # laion/clap-htsat-unfused config.json: it sets only projection_dim 512, logit_scale_init_value 1 / 0.07,
    # projection_hidden_act relu, initializer_factor 1.0 and the towers' model types; the rest are the
    # ClapAudioConfig / ClapTextConfig defaults, which are this checkpoint's (gelu, hidden_dropout 0.1, no
    # attention dropout / drop path in the audio tower, layer_norm_eps 1e-5 audio / 1e-12 text, 527 classes,
    # max_position_embeddings 514, type_vocab_size 1, pad 1 / bos 0 / eos 2).
    audio_config = ClapAudioConfig(
        window_size=8,
        num_mel_bins=num_mel_bins,
        spec_size=256,
        hidden_act="gelu",
        patch_size=4,
        patch_stride=[4, 4],
        num_classes=527,
        hidden_size=128,  # published 768
        projection_dim=64,  # published 512
        depths=[2, 2, 2, 2],  # published [2, 2, 6, 2]
        num_attention_heads=[2, 4, 8, 16],  # published [4, 8, 16, 32]
        enable_fusion=False,
        hidden_dropout_prob=0.1,
        fusion_type=None,
        patch_embed_input_channels=1,
        flatten_patch_embeds=True,
        patch_embeds_hidden_size=16,  # published 96
        enable_patch_layer_norm=True,
        drop_path_rate=0.0,
        attention_probs_dropout_prob=0.0,
        qkv_bias=True,
        mlp_ratio=4.0,
        aff_block_r=4,
        num_hidden_layers=4,
        projection_hidden_act="relu",
        layer_norm_eps=1e-5,
        initializer_factor=1.0,
    )
    text_config = ClapTextConfig(
        vocab_size=vocab_size,  # published 50265
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=514,
        type_vocab_size=1,
        initializer_factor=1.0,
        layer_norm_eps=1e-12,
        projection_dim=64,  # published 512
        pad_token_id=pad_id,
        bos_token_id=bos_id,
        eos_token_id=eos_id,
        projection_hidden_act="relu",
    )
    return [ClapConfig(
        text_config=text_config,
        audio_config=audio_config,
        logit_scale_init_value=1 / 0.07,
        projection_dim=64,  # published 512
        projection_hidden_act="relu",
        initializer_factor=1.0,
    )]
