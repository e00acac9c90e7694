"""BEiT image classifier (ViT-style patch embedding with a CLS token and no absolute position embedding; pre-norm
transformer layers whose self-attention adds a learned per-layer relative position bias (a table of
(2 Wh - 1)(2 Ww - 1) + 3 entries per head, bilinearly resized to the patch grid and gathered by a relative position
index, the 3 extra entries for cls->token, token->cls and cls->cls), and whose attention / MLP branches are scaled by
learned per-channel LayerScale vectors (lambda_1, lambda_2) before the residual add; the patch tokens are
mean-pooled and LayerNorm-ed into a linear classifier), after `microsoft/beit-base-patch16-224`, shrunk.

BeitForImageClassification, 1000 ImageNet classes as published.
Shrunk: hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head size 64 -> 32), intermediate 3072 -> 512 (4x kept),
image 224 x 224 -> 96 x 96 (patch 16 kept: 6 x 6 = 36 patches + CLS instead of 196 + CLS; the relative position bias
table shrinks with the window from 27 x 27 + 3 to 11 x 11 + 3 entries per head).
Input: pixel_values (2, 3, 96, 96) (BEiT's processor normalizes with mean = std = 0.5: values in [-1, 1]).
Output: logits (2, 1000). The relative position bias tables and the CLS token, which transformers zero-initializes,
are re-initialized at random (see Model.__init__) so that the bias path is not a no-op.
"""
import torch
from torch import nn
from transformers import BeitConfig, BeitForImageClassification
from transformers.models.beit.modeling_beit import BeitRelativePositionBias

batch_size = 2
image_size = 96


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BeitForImageClassification(config)
        # transformers zero-initializes every relative position bias table (and the CLS token), so a freshly built
        # model adds a zero bias to every attention logit. Stand in for trained tables: N(0, 0.02) truncated, the
        # init Swin uses for its tables, and timm's N(0, 0.02) truncated for the CLS token.
        for module in self.model.modules():
            if isinstance(module, BeitRelativePositionBias):
                nn.init.trunc_normal_(module.relative_position_bias_table, std=0.02)
        nn.init.trunc_normal_(self.model.beit.embeddings.cls_token, std=0.02)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size) * 2 - 1]


def get_init_inputs():
    # microsoft/beit-base-patch16-224 config.json. Kept: patch 16, gelu, layer_norm_eps 1e-12, dropouts 0,
    # drop_path_rate 0.1 (inactive in eval), layer_scale_init_value 0.1, relative position bias per layer (not
    # shared), no absolute position embedding, no mask token, mean pooling, initializer_range 0.02, 1000 labels.
    return [BeitConfig(
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        initializer_range=0.02,
        layer_norm_eps=1e-12,
        image_size=image_size,  # published 224
        patch_size=16,
        num_channels=3,
        use_mask_token=False,
        use_absolute_position_embeddings=False,
        use_relative_position_bias=True,
        use_shared_relative_position_bias=False,
        layer_scale_init_value=0.1,
        drop_path_rate=0.1,
        use_mean_pooling=True,
        num_labels=1000,
    )]
