"""MGP-STR scene text recognizer (a ViT over 32 x 128 word crops with 4 x 4 patches, then three A^3 "adaptive
addressing and aggregation" modules that each pool the tokens into 27 character slots through learned spatial
attention maps, feeding character, BPE and WordPiece heads), after `alibaba-damo/mgp-str-base`, shrunk.
MgpstrForSceneTextRecognition; output: logits (char (2, 27, 38), bpe (2, 27, 1000), wordpiece (2, 27, 1000)).
"""
import torch
from torch import nn
from transformers import MgpstrConfig, MgpstrForSceneTextRecognition

batch_size = 2
image_height, image_width = 32, 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MgpstrForSceneTextRecognition(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.randn(batch_size, 3, image_height, image_width)]


def get_init_inputs():
    # Kept: image (32, 128), patch 4 (256 tokens + CLS), max_token_length 27, 38 character classes, qkv bias,
    # mlp_ratio 4, layer_norm_eps 1e-5.
    return [MgpstrConfig(
        image_size=[image_height, image_width],
        patch_size=4,
        max_token_length=27,
        num_character_labels=38,
        num_bpe_labels=1000,  # published 50257 (GPT-2 BPE)
        num_wordpiece_labels=1000,  # published 30522 (BERT WordPiece)
        hidden_size=64,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        mlp_ratio=4.0,
        qkv_bias=True,
        layer_norm_eps=1e-5,
    )]
