"""SigLIP image-text model (vision tower: ViT with learned position embeddings, no CLS token, pre-norm layers with
GELU(tanh) MLPs, post-LayerNorm and a multihead-attention-pooling head (one learned probe query attends over the
patch tokens, then LayerNorm + MLP); text tower: the same pre-norm transformer over token + learned position
embeddings, without a causal mask and without an attention mask, pooled by taking the LAST position's hidden state and
a linear head; both embeddings L2-normalized, logits = cosine similarity * exp(logit_scale) + logit_bias, the pairwise
sigmoid loss's logits), after `google/siglip-base-patch16-224`, shrunk.

SiglipModel. As the SigLIP processor's documentation says, the model was trained with text padded to max_length:
the tokenizer appends "</s>" and pads with "</s>" (pad = eos = id 1, padding side right) up to max_length, and no
attention mask is passed, so the pads are attended to and the pooled last position is always a pad token.
Shrunk: vision and text towers each hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head size 64 -> 32),
intermediate 3072 -> 512 (4x kept); image 224 x 224 -> 64 x 64 (patch 16 kept: 4 x 4 = 16 patches instead of 196);
vocab 32000 -> 1000; max_position_embeddings / max_length 64 -> 16.
Inputs: input_ids (2, 16) padded to max_length (11 and 7 text tokens, each followed by "</s>" pads), pixel_values
(2, 3, 64, 64) (SigLIP's processor normalizes with mean = std = 0.5: values in [-1, 1]).
Output: (logits_per_image (2 images, 2 texts), logits_per_text (2 texts, 2 images) = its transpose). logit_scale and
logit_bias are set to the SigLIP paper's initialization (see Model.__init__) instead of transformers' zeros.
"""
import math

import torch
from torch import nn
from transformers import SiglipConfig, SiglipModel

batch_size = 2
seq_len = 16  # tokenizer max_length; published 64
image_size = 64
vocab_size = 1000
pad_token_id = 1  # "</s>", also the eos token


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SiglipModel(config)
        # transformers zero-initializes logit_scale and logit_bias (logits = cosine similarity * 1 + 0). Stand in for
        # trained values with the SigLIP paper's initialization: temperature exp(log 10) = 10 and bias -10.
        with torch.no_grad():
            self.model.logit_scale.fill_(math.log(10.0))
            self.model.logit_bias.fill_(-10.0)

    def forward(self, input_ids, pixel_values):
        out = self.model(input_ids=input_ids, pixel_values=pixel_values)
        return out.logits_per_image, out.logits_per_text


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))  # 0-2: "<pad>", "</s>", "<unk>"
    input_ids[0, -5:] = pad_token_id  # "</s>" then 4 pads (pad = eos)
    input_ids[1, -9:] = pad_token_id  # a shorter prompt: "</s>" then 8 pads
    pixel_values = torch.rand(batch_size, 3, image_size, image_size) * 2 - 1
    return [input_ids, pixel_values]


def get_init_inputs():
    # google/siglip-base-patch16-224 config.json (both towers: gelu_pytorch_tanh, layer_norm_eps 1e-6, attention
    # dropout 0; vision: 3 channels, patch 16, attention-pooling head; text: pad_token_id 1, projection to the
    # hidden size). Kept: everything but the sizes below.
    text_config = dict(
        vocab_size=vocab_size,  # published 32000
        hidden_size=128,  # published 768
        intermediate_size=512,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        max_position_embeddings=seq_len,  # published 64
        hidden_act="gelu_pytorch_tanh",
        layer_norm_eps=1e-6,
        attention_dropout=0.0,
        pad_token_id=pad_token_id,
        # not in the published file, whose config defaults (CLIP's 49406 / 49407) lie outside the shrunk vocab; the
        # model never reads them. The SigLIP tokenizer adds no BOS and its eos "</s>" is id 1.
        bos_token_id=None,
        eos_token_id=pad_token_id,
    )
    vision_config = dict(
        hidden_size=128,  # published 768
        intermediate_size=512,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        num_channels=3,
        image_size=image_size,  # published 224
        patch_size=16,
        hidden_act="gelu_pytorch_tanh",
        layer_norm_eps=1e-6,
        attention_dropout=0.0,
        vision_use_head=True,
    )
    return [SiglipConfig(text_config=text_config, vision_config=vision_config)]
