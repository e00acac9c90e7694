"""BLIP image-text retrieval model (vision: ViT with a CLS token and learned position embeddings, pre-norm layers, a
final LayerNorm; text: a BERT encoder (post-norm, learned absolute positions, bidirectional self-attention with the
padding mask) whose every layer adds a cross-attention to all image tokens after its self-attention), after
`Salesforce/blip-itm-base-coco`, shrunk.

BlipForImageTextRetrieval, run as the model card runs it, twice on the same pair: with use_itm_head=True the text
encoder cross-attends to the image tokens and the ITM head (linear, 2 logits: no-match / match) reads its [CLS]
output; with use_itm_head=False the text encoder runs without cross-attention and the image and text [CLS] states are
projected (vision_proj / text_proj), L2-normalized and compared (the ITC cosine-similarity matrix).
Shrunk: vision hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head size 64 -> 32), intermediate 3072 -> 512,
image 384 x 384 -> 64 x 64 (patch 16 kept: 16 patches + CLS instead of 576 + CLS); text hidden 768 -> 128 (its
cross-attention width follows the vision hidden size, as published), 12 layers -> 2, 12 heads -> 4, intermediate
3072 -> 512, vocab 30524 -> 1000 (the BERT ids [PAD] 0, [CLS] 101, [SEP] 102 kept; "[DEC]" / "[ENC]" still the
last two), max_position_embeddings 512 -> 64; image_text_hidden_size 256 -> 64.
Inputs: input_ids (2, 12) ("[CLS] ... [SEP]", the second caption 4 tokens shorter and right-padded with [PAD] as the
BLIP processor pads), attention_mask (2, 12) with its last 4 positions 0 for the second caption, pixel_values
(2, 3, 64, 64) (BLIP's processor normalizes with the CLIP mean / std).
Output: (itm_score (2, 2): ITM logits per image-caption pair, itc_score (2 images, 2 captions): cosine similarities).
The vision tower, which the published vision initializer_range of 1e-10 builds with ~0 weights, is re-initialized
as the original BLIP ViT initializes it (see Model.__init__).
"""
import torch
from torch import nn
from transformers import BlipConfig, BlipForImageTextRetrieval

batch_size = 2
seq_len = 12
image_size = 64
vocab_size = 1000
pad_token_id, cls_token_id, sep_token_id = 0, 101, 102  # BERT's [PAD], [CLS], [SEP]
bos_token_id = vocab_size - 2  # "[DEC]", added after BERT's vocab ("[ENC]" is the last id); published 30522


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BlipForImageTextRetrieval(config)
        # The published vision config has initializer_range 1e-10 (only meant for checkpoint loading), and transformers
        # initializes the whole vision tower with it: every vision linear, the patch-embedding conv and the position /
        # class embeddings come out ~1e-10, so the image tokens are the same for every image and the ITM / ITC
        # scores ignore the image. Stand in for trained weights with the original BLIP ViT's initialization
        # (models/vit.py): linears truncated N(0, 0.02) with zero biases, position and class embeddings truncated
        # N(0, 0.02), the patch-embedding conv left at PyTorch's default; the LayerNorms are 1 / 0 already.
        vision = self.model.vision_model
        for module in vision.modules():
            if isinstance(module, nn.Linear):
                nn.init.trunc_normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)
        vision.embeddings.patch_embedding.reset_parameters()
        nn.init.trunc_normal_(vision.embeddings.position_embedding, std=0.02)
        nn.init.trunc_normal_(vision.embeddings.class_embedding, std=0.02)

    def forward(self, input_ids, attention_mask, pixel_values):
        itm = self.model(
            input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask, use_itm_head=True
        ).itm_score
        itc = self.model(
            input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask, use_itm_head=False
        ).itm_score
        return itm, itc


def get_inputs():
    input_ids = torch.randint(sep_token_id + 1, bos_token_id, (batch_size, seq_len))  # word pieces
    input_ids[:, 0] = cls_token_id
    input_ids[0, -1] = sep_token_id
    input_ids[1, -5] = sep_token_id
    input_ids[1, -4:] = pad_token_id  # the second caption is 4 tokens shorter
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -4:] = 0
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    return [input_ids, attention_mask, pixel_values]


def get_init_inputs():
    # Salesforce/blip-itm-base-coco config.json. Kept (text): gelu, layer_norm_eps 1e-12, dropouts 0,
    # initializer_range 0.02, pad / eos / sep ids 0 / 2 / 102 (bos "[DEC]" moves with the vocab; ITM / ITC never
    # read it), is_decoder (the cross-attention layers are built; the retrieval model runs the encoder
    # bidirectionally). Kept (vision): patch 16, gelu, layer_norm_eps 1e-5, initializer_range 1e-10
    # (see Model.__init__). Kept (top): projection_dim 512, logit_scale_init_value 2.6592, initializer_factor 1.0.
    text_config = dict(
        vocab_size=vocab_size,  # published 30524
        hidden_size=128,  # published 768
        intermediate_size=512,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        max_position_embeddings=64,  # published 512
        hidden_act="gelu",
        layer_norm_eps=1e-12,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        initializer_range=0.02,
        pad_token_id=pad_token_id,
        bos_token_id=bos_token_id,  # published 30522
        eos_token_id=2,
        sep_token_id=sep_token_id,
        is_decoder=True,
    )
    vision_config = dict(
        hidden_size=128,  # published 768
        intermediate_size=512,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        image_size=image_size,  # published 384
        patch_size=16,
        hidden_act="gelu",
        layer_norm_eps=1e-5,
        attention_dropout=0.0,
        initializer_range=1e-10,
    )
    return [BlipConfig(
        text_config=text_config,
        vision_config=vision_config,
        projection_dim=512,
        logit_scale_init_value=2.6592,
        image_text_hidden_size=64,  # published 256
        initializer_factor=1.0,
        initializer_range=0.02,
    )]
