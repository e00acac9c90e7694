"""Kosmos-2 grounded multimodal language model (Peng et al. 2023, "Kosmos-2: Grounding Multimodal Large Language
Models to the World"), after `microsoft/kosmos-2-patch14-224`, shrunk.

Kosmos2ForConditionalGeneration. Vision: a CLIP ViT (patch 14, CLS token, learned positions, pre-LayerNorm, pre-norm
layers, quick_gelu MLP); the whole last hidden state (CLS + patches) goes through the post LayerNorm and is
L2-normalized. Image-to-text connector (Kosmos2ImageToTextProjection): a linear layer to the text width, then 64
learned latent queries cross-attend (one multi-head attention, q/k/v/out projections with bias, no sub-LayerNorm,
no mask) over [image tokens ; latent queries] -> 64 image embeddings. Text: a decoder-only Magneto
transformer (pre-LN, and sub-LayerNorms inside attention (inner_attn_ln) and inside the GELU FFN (ffn_layernorm)),
token embeddings scaled by sqrt(embed_dim), fixed sinusoidal positions with the M2M100 padding offset (position ids
computed from input_ids != pad), causal + padding mask; the embeddings at the positions marked by
image_embeds_position_mask are overwritten (boolean-index assignment) with the 64 image embeddings before the
scaling; LM head tied to the token embedding.
Shrunk: vision hidden 1024 -> 64, 24 layers -> 2, 16 heads -> 4, intermediate 4096 -> 256 (image 224 and patch 14
kept: 16 x 16 = 256 patches + CLS); text embed_dim 2048 -> 128, 24 layers -> 2, 32 heads -> 4 (head_dim 64 -> 32),
ffn 8192 -> 512; vocab 65037 -> 2035: the 64002-entry SentencePiece part -> 1000, followed as published by the 11
tag tokens (</doc> 64002 -> 1000, <image> 64003 -> 1001, </image> 64004 -> 1002, ..., <phrase> 64007 -> 1005,
</phrase> 1006, <object> 1007, </object> 1008, <grounding> 64012 -> 1010) and the 1024 <patch_index_NNNN> tokens
(a 32 x 32 grid, kept: 64013.. -> 1011..); <s> 0 / <pad> 1 / </s> 2 / <unk> 3 kept. latent_query_num 64 kept.
Inputs, as Kosmos2Processor builds them (token counts from the config; the text piece ids are stand-ins): each
prompt is "<s><image>" + 64 image placeholders (ids first_image_token_id = <unk> + 1 = 4 .. 67) + "</image>"
followed by the text; image_embeds_position_mask is 1 on the 64 placeholders only; right padding with <pad>.
- sample 0: "<grounding> An image of<phrase> a snowman</phrase><object><patch_index_0044><patch_index_0863></object>
  warming himself by a fire" (a grounded caption, as used for the training loss): 67 + 18 text tokens = 85;
- sample 1: "<grounding> An image of" : 67 + 4 = 71 tokens, padded to 85.
pixel_values (2, 3, 224, 224) (CLIP-normalized), input_ids / attention_mask / image_embeds_position_mask (2, 85)
int64.
Output: LM logits (2, 85, 2035).
"""
import torch
from torch import nn
from transformers import Kosmos2Config, Kosmos2ForConditionalGeneration, Kosmos2TextConfig, Kosmos2VisionConfig

batch_size = 2
image_size = 224
latent_query_num = 64
bos_token_id, pad_token_id, eos_token_id, unk_token_id = 0, 1, 2, 3
base_vocab = 1000  # published 64002
boi_id, eoi_id = base_vocab + 1, base_vocab + 2  # <image>, </image>
bop_id, eop_id, boo_id, eoo_id = base_vocab + 5, base_vocab + 6, base_vocab + 7, base_vocab + 8
grounding_id = base_vocab + 10
patch_index_base = base_vocab + 11  # <patch_index_0000>
num_patch_index_tokens = 1024
vocab_size = patch_index_base + num_patch_index_tokens  # 2035; published 65037
first_image_token_id = unk_token_id + 1


def _text(n):
    return torch.randint(5, base_vocab, (n,)).tolist()  # stand-ins for SentencePiece pieces


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Kosmos2ForConditionalGeneration(config)

    def forward(self, pixel_values, input_ids, attention_mask, image_embeds_position_mask):
        return self.model(
            pixel_values=pixel_values,
            input_ids=input_ids,
            attention_mask=attention_mask,
            image_embeds_position_mask=image_embeds_position_mask,
        ).logits


def get_inputs():
    image_part = [bos_token_id, boi_id] + list(range(first_image_token_id, first_image_token_id + latent_query_num))
    image_part += [eoi_id]
    texts = [
        # <grounding> An image of <phrase> a snowman </phrase> <object> <patch_index_0044> <patch_index_0863>
        # </object> warming himself by a fire
        [grounding_id] + _text(3) + [bop_id] + _text(3) + [eop_id, boo_id, patch_index_base + 44,
                                                            patch_index_base + 863, eoo_id] + _text(5),
        [grounding_id] + _text(3),  # <grounding> An image of
    ]
    seqs = [image_part + t for t in texts]
    seq_len = max(len(s) for s in seqs)
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    image_embeds_position_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, s in enumerate(seqs):
        input_ids[i, : len(s)] = torch.tensor(s)
        attention_mask[i, : len(s)] = 1
        image_embeds_position_mask[i, 2 : 2 + latent_query_num] = 1  # after <s> <image>
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    return [pixel_values, input_ids, attention_mask, image_embeds_position_mask]


def get_init_inputs():
    # microsoft/kosmos-2-patch14-224 config.json. Kept: vision patch 14, image 224, quick_gelu, layer_norm_eps 1e-5,
    # attention dropout 0; text gelu, layer_norm_eps 1e-5, scale_embedding, max_position_embeddings 2048, dropout
    # 0.1 / attention_dropout 0.1 (inactive in eval), layerdrop 0, init_std 0.02, tied embeddings, bos 0 / pad 1 /
    # eos 2; latent_query_num 64.
    vision_config = Kosmos2VisionConfig(
        hidden_size=64,  # published 1024
        intermediate_size=256,  # published 4096
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        num_channels=3,
        image_size=image_size,
        patch_size=14,
        hidden_act="quick_gelu",
        layer_norm_eps=1e-5,
        attention_dropout=0.0,
    )
    text_config = Kosmos2TextConfig(
        vocab_size=vocab_size,  # published 65037
        max_position_embeddings=2048,
        embed_dim=128,  # published 2048
        layers=2,  # published 24
        ffn_dim=512,  # published 8192
        attention_heads=4,  # published 32
        activation_function="gelu",
        dropout=0.1,
        attention_dropout=0.1,
        activation_dropout=0.0,
        layerdrop=0.0,
        layer_norm_eps=1e-5,
        init_std=0.02,
        scale_embedding=True,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,
    )
    return [Kosmos2Config(
        text_config=text_config,
        vision_config=vision_config,
        latent_query_num=latent_query_num,
        tie_word_embeddings=True,
    )]
