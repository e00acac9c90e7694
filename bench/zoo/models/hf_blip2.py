"""BLIP-2 image-to-text model (frozen-encoder design: an EVA ViT-g-style vision tower (CLS token, learned position
embeddings, pre-norm layers with a fused qkv projection (its bias made of q and v biases around a zero k part), GELU
MLP, post LayerNorm); a Q-Former: a BERT-style post-norm encoder whose inputs are 32 learned query embeddings
(LayerNormed; no text), with self-attention among the queries and, in every second layer (cross_attention_frequency
2), a cross-attention from the queries to all the image tokens; a linear projection of the 32 query outputs to the
language model width; an OPT decoder (pre-LayerNorm, learned positions with OPT's offset of 2, ReLU MLP, tied LM head)
whose prompt holds 32 image placeholder tokens in front of BOS: their embeddings are replaced (masked_scatter) by the
projected query outputs), after `Salesforce/blip2-opt-2.7b` (its current config, with image_token_index), shrunk,
with a tiny OPT language model.

Blip2ForConditionalGeneration.
Vision: image 224 x 224 -> 112 x 112 (patch 14 kept: 16 x 16 = 256 -> 8 x 8 = 64 patches + CLS), hidden 1408 -> 128,
39 layers -> 2, 16 heads -> 4 (head size 88 -> 32), intermediate 6144 -> 560 (the published 4.36x kept).
Q-Former: hidden 768 -> 128, 12 layers -> 2 (layer 0 cross-attends to the image, layer 1 does not), 12 heads -> 4
(head size 64 -> 32), intermediate 3072 -> 512; 32 query tokens kept.
OPT (facebook/opt-2.7b): hidden 2560 -> 128 (word_embed_proj_dim too), 32 layers -> 2, 32 heads -> 4 (head size
80 -> 32), ffn 10240 -> 512, vocab 50304 -> 1024 (the image token 50265, the first id after GPT-2's 50265 base
tokens, -> 1000, the first id after the shrunk 1000; pad 1 and bos 2 kept).
Inputs, as Blip2Processor builds them: pixel_values (2, 3, 112, 112); input_ids (2, 48) = 32 image tokens, then the
tokenized prompt: bos (</s> = 2) and 15 text tokens, the second prompt 4 tokens shorter and right-padded with
<pad> = 1; attention_mask (2, 48) with the padding 0 (the image tokens are attended).
Output: LM logits (2, 48, 1024). The query tokens, which transformers initializes to zeros (all 32 queries then
give the same output), and the vision tower, which the published vision initializer_range of 1e-10 builds with ~0
weights, are re-initialized as the original BLIP-2 code initializes them (see Model.__init__).
"""
import math

import torch
from torch import nn
from transformers import (
    Blip2Config,
    Blip2ForConditionalGeneration,
    Blip2QFormerConfig,
    Blip2VisionConfig,
    OPTConfig,
)

batch_size = 2
image_size = 112
num_query_tokens = 32
text_len = 16  # bos + 15 text tokens
seq_len = num_query_tokens + text_len
base_vocab = 1000  # published 50265 (GPT-2 BPE)
image_token_id = base_vocab  # published 50265
vocab_size = 1024  # published 50304
pad_token_id, bos_token_id = 1, 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Blip2ForConditionalGeneration(config)
        # transformers initializes the learned query tokens to zeros: the 32 queries are then one query 32 times and
        # every image token in the prompt gets the same embedding. The original BLIP-2 code (LAVIS, Blip2Base.
        # init_Qformer) draws them from N(0, 0.02) (the Q-Former's initializer_range); do the same.
        nn.init.normal_(self.model.query_tokens, mean=0.0, std=config.qformer_config.initializer_range)
        # The vision config's initializer_range is 1e-10 (only meant for checkpoint loading), and transformers builds
        # the whole vision tower with it: every vision linear, the patch-embedding conv and the position / class
        # embeddings come out ~1e-10, so the image tokens are the same for every image. Stand in for trained weights
        # with the original EVA ViT's initialization (LAVIS eva_vit.py): linears truncated N(0, 0.02) with zero
        # biases, then each layer's attention output projection and fc2 divided by sqrt(2 * layer number)
        # (fix_init_weight); position and class embeddings truncated N(0, 0.02); the patch-embedding conv at PyTorch's
        # default; the LayerNorms are 1 / 0 already.
        vision = self.model.vision_model
        for module in vision.modules():
            if isinstance(module, nn.Linear):
                nn.init.trunc_normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)
        for layer_number, layer in enumerate(vision.encoder.layers, start=1):
            layer.self_attn.projection.weight.data.div_(math.sqrt(2.0 * layer_number))
            layer.mlp.fc2.weight.data.div_(math.sqrt(2.0 * layer_number))
        vision.embeddings.patch_embedding.reset_parameters()
        nn.init.trunc_normal_(vision.embeddings.position_embedding, std=0.02)
        nn.init.trunc_normal_(vision.embeddings.class_embedding, std=0.02)

    def forward(self, pixel_values, input_ids, attention_mask):
        return self.model(pixel_values=pixel_values, input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    image = torch.full((batch_size, num_query_tokens), image_token_id)
    bos = torch.full((batch_size, 1), bos_token_id)
    text = torch.randint(3, base_vocab, (batch_size, text_len - 1))
    input_ids = torch.cat([image, bos, text], dim=1)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id
    attention_mask[1, -4:] = 0
    return [pixel_values, input_ids, attention_mask]


def get_init_inputs():
    # Salesforce/blip2-opt-2.7b config.json. Kept: 32 query tokens, image_text_hidden_size 256 (unused by this
    # class), initializer_range 0.02, initializer_factor 1.0; vision: patch 14, gelu, layer_norm_eps 1e-6, qkv_bias,
    # attention dropout 0; Q-Former: cross_attention_frequency 2, gelu, layer_norm_eps 1e-12, dropout 0.1 (inactive
    # in eval), max_position_embeddings 512, no text input; OPT: relu, do_layer_norm_before, max_position_embeddings
    # 2048, enable_bias, dropout 0.1, tied word embeddings, pad 1, bos 2.
    vision_config = Blip2VisionConfig(
        hidden_size=128,  # published 1408
        intermediate_size=560,  # published 6144
        num_hidden_layers=2,  # published 39
        num_attention_heads=4,  # published 16
        image_size=image_size,  # published 224
        patch_size=14,
    )
    qformer_config = Blip2QFormerConfig(
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        cross_attention_frequency=2,
    )
    text_config = OPTConfig(
        vocab_size=vocab_size,  # published 50304
        hidden_size=128,  # published 2560
        num_hidden_layers=2,  # published 32
        ffn_dim=512,  # published 10240
        num_attention_heads=4,  # published 32
        word_embed_proj_dim=128,  # published 2560
        max_position_embeddings=2048,
        eos_token_id=bos_token_id,  # published 50118 ("\n", outside the shrunk vocab; only generation reads it)
    )
    return [Blip2Config(
        vision_config=vision_config,
        qformer_config=qformer_config,
        text_config=text_config,
        num_query_tokens=num_query_tokens,
        image_token_index=image_token_id,  # published 50265
    )]
