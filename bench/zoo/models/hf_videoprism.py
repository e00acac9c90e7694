"""VideoPrism video-text model (Google DeepMind, "VideoPrism: A Foundational Visual Encoder for Video
Understanding", the LVT (video-language) variant): a factorised space-time ViT video encoder and a causal text
encoder trained contrastively. One forward: the video is cut into per-frame 18 x 18 patches (a Conv3d with a
(1, 18, 18) tubelet, i.e. no temporal mixing), frames folded into the batch; spatial transformer layers attend
within each frame (learned 2D position embeddings, no CLS); after a LayerNorm the tokens are transposed so that
temporal layers attend along time for each patch position (learned temporal embeddings); the space-time tokens
pass through auxiliary transformer layers and a multi-head attention-pooling head (one learned query, a learned
per-dimension softplus query scale, head_dim = intermediate / heads), then LayerNorm and L2 normalisation. Every
transformer layer is pre-LN with attention logits soft-capped at 50 (50 * tanh(x / 50)). The text encoder scales
token embeddings by sqrt(hidden), adds sinusoidal positions, appends a CLS embedding at the end of the sequence,
runs causal (and padding-masked) layers with ReLU MLPs and L2-normalises the final CLS state. Video-text
similarity = video_embeds @ text_embeds.T, exponentiated and normalised over the videos / texts; after
`google/videoprism-lvt-base-f16r288`, shrunk.

VideoPrismClipModel (eager attention: the library disables sdpa, which cannot soft-cap; LayerNorms with
gamma + 1); the output is the tuple (logits_per_video (2, 2), video_embeds (2, 64), text_embeds (2, 64)).
Shrunk: vision hidden 768 -> 64, 12 spatial layers -> 2, 4 temporal layers -> 2, 2 auxiliary layers kept,
12 heads -> 4, intermediate 3072 -> 256 (pooling head_dim 256 -> 64), 16 frames -> 8, 288 x 288 frames -> 72 x 72
(4 x 4 = 16 patches per frame, 128 space-time tokens); text hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4,
intermediate 3072 -> 256, vocab 32000 -> 1000. Kept: tubelet (1, 18, 18), soft-cap 50, layer_norm_eps 1e-6,
gelu (vision) / relu (text), max_position_embeddings 64, L2-normalised outputs.
Inputs: pixel_values_videos (2, 8, 3, 72, 72) (frames normalised to [0, 1], as VideoPrismProcessor returns them);
input_ids (2, 16) and attention_mask, the second caption right-padded by 5 tokens (pad 0).
"""
import torch
from torch import nn
from transformers import VideoPrismClipModel, VideoPrismConfig, VideoPrismTextConfig, VideoPrismVisionConfig

batch_size = 2
num_frames = 8
image_size = 72
text_len = 16
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VideoPrismClipModel(config)

    def forward(self, pixel_values_videos, input_ids, attention_mask):
        out = self.model(pixel_values_videos=pixel_values_videos, input_ids=input_ids, attention_mask=attention_mask)
        return out.logits_per_video, out.video_embeds, out.text_embeds


def get_inputs():
    pixel_values_videos = torch.rand(batch_size, num_frames, 3, image_size, image_size)
    input_ids = torch.randint(1, vocab_size, (batch_size, text_len))
    attention_mask = torch.ones(batch_size, text_len, dtype=torch.long)
    input_ids[-1, -5:] = pad_token_id  # the last caption right-padded
    attention_mask[-1, -5:] = 0
    return [pixel_values_videos, input_ids, attention_mask]


def get_init_inputs():
    # google/videoprism-lvt-base-f16r288 config.json. Kept: tubelet_size (1, 18, 18), attn_logit_softcapping 50,
    # 2 auxiliary layers, qkv bias, layer_norm_eps 1e-6, gelu_python / relu, apply_l2norm, text pad 0,
    # max_position_embeddings 64.
    vision_config = VideoPrismVisionConfig(
        image_size=image_size,  # published 288
        num_frames=num_frames,  # published 16
        tubelet_size=[1, 18, 18],
        hidden_size=64,  # published 768
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        num_spatial_layers=2,  # published 12
        num_temporal_layers=2,  # published 4
        num_auxiliary_layers=2,
    )
    text_config = VideoPrismTextConfig(
        vocab_size=vocab_size,  # published 32000
        hidden_size=64,  # published 768
        intermediate_size=256,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        max_position_embeddings=64,
        pad_token_id=pad_token_id,
    )
    return [VideoPrismConfig(vision_config=vision_config, text_config=text_config)]
