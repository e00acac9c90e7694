"""V-JEPA 2 (Assran et al. 2025, "V-JEPA 2: Self-Supervised Video Models Enable Understanding, Prediction and
Planning"): a video ViT encoder and a narrower ViT predictor trained by joint-embedding prediction. The encoder embeds
the clip with a tubelet patch embedding (a Conv3d with kernel = stride = 2 frames x 16 x 16 px), adds no position
embedding, and runs pre-norm blocks whose attention applies a 3-D rotary embedding: each head's dimensions are split
into three equal even-sized chunks rotated by the token's frame, row and column index (decoded from its flat token
id; the leftover dimensions are not rotated), then a final LayerNorm. The predictor gathers the encoder outputs at
the context positions, projects them to its width, appends a learned mask token for every target position, sorts the
tokens by position id, runs the same 3-D-RoPE blocks with the true (masked) position ids, unsorts, keeps the target
tokens and projects them back to the encoder width: its outputs are the predicted representations of the masked
spatio-temporal block. After `facebook/vjepa2-vitl-fpc64-256`, shrunk.

VJEPA2Model (encoder + predictor), called with a context / target mask split, as in V-JEPA masked prediction.
Encoder: ViT-L hidden 1024 -> 192, 24 layers -> 2, 16 heads -> 3 (head size 64 kept, so the RoPE split is the
published 20 / 20 / 20 rotated + 4 plain dims), MLP ratio 4 kept. Predictor: hidden 384 -> 96, 12 layers -> 2,
12 heads -> 3 (head size 32 kept: 10 / 10 / 10 + 2), 10 mask tokens kept. Clip: 64 frames at 256 x 256
(32 x 16 x 16 = 8192 tokens) -> 8 frames at 64 x 64 (crop_size 64, frames_per_clip 8: 4 x 4 x 4 = 64 tokens);
patch 16, tubelet 2 kept.
Inputs: pixel_values_videos (2, 8, 3, 64, 64) (batch, frames, channels, height, width), context_mask (2, 48) and
target_mask (2, 16): flat token ids (frame-major) of the visible tokens and of a masked 2 x 2-patch block spanning all
4 time steps (a different block per sample), as V-JEPA's multi-block masking draws them.
Output: (last_hidden_state (2, 64, 192): encoder features of all tokens, predictor last_hidden_state (2, 16, 192):
the predicted features at the target positions).
"""
import torch
from torch import nn
from transformers import VJEPA2Config, VJEPA2Model

batch_size = 2
num_frames = 8  # published 64 (frames_per_clip)
image_size = 64  # published 256 (crop_size)
patch_size = 16
tubelet_size = 2
grid_t, grid_hw = num_frames // tubelet_size, image_size // patch_size  # 4 x 4 x 4 tokens
# Masked block (rows, cols) of patches per sample, spanning every time step.
target_blocks = [((1, 3), (1, 3)), ((0, 2), (2, 4))]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VJEPA2Model(config)

    def forward(self, pixel_values_videos, context_mask, target_mask):
        out = self.model(
            pixel_values_videos=pixel_values_videos, context_mask=[context_mask], target_mask=[target_mask]
        )
        return out.last_hidden_state, out.predictor_output.last_hidden_state


def get_inputs():
    pixel_values_videos = torch.randn(batch_size, num_frames, 3, image_size, image_size)
    ids = torch.arange(grid_t * grid_hw * grid_hw).view(grid_t, grid_hw, grid_hw)
    context, target = [], []
    for (r0, r1), (c0, c1) in target_blocks:
        masked = torch.zeros(grid_t, grid_hw, grid_hw, dtype=torch.bool)
        masked[:, r0:r1, c0:c1] = True
        target.append(ids[masked])
        context.append(ids[~masked])
    return [pixel_values_videos, torch.stack(context), torch.stack(target)]


def get_init_inputs():
    # facebook/vjepa2-vitl-fpc64-256 config.json. Kept: patch 16, tubelet 2, mlp_ratio 4 (encoder and predictor),
    # gelu, qkv_bias, layer_norm_eps 1e-6, 10 predictor mask tokens, drop_path 0, dropouts 0, initializer_range 0.02,
    # num_pooler_layers 3 (the pooler belongs to VJEPA2ForVideoClassification, not built here).
    return [VJEPA2Config(
        patch_size=patch_size,
        crop_size=image_size,  # published 256
        frames_per_clip=num_frames,  # published 64
        tubelet_size=tubelet_size,
        hidden_size=192,  # published 1024
        num_attention_heads=3,  # published 16
        num_hidden_layers=2,  # published 24
        mlp_ratio=4.0,
        hidden_act="gelu",
        qkv_bias=True,
        layer_norm_eps=1e-6,
        drop_path_rate=0.0,
        attention_probs_dropout_prob=0.0,
        attention_dropout=0.0,
        initializer_range=0.02,
        num_pooler_layers=3,
        pred_hidden_size=96,  # published 384
        pred_num_attention_heads=3,  # published 12
        pred_num_hidden_layers=2,  # published 12
        pred_num_mask_tokens=10,
        pred_mlp_ratio=4.0,
        # published True (zero-initialized mask tokens, which training makes nonzero); False draws them from
        # trunc_normal(0.02) so that the target tokens do not enter the predictor as exact zeros.
        pred_zero_init_mask_tokens=False,
    )]
