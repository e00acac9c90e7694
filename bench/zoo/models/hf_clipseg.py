"""CLIPSeg (Lueddecke & Ecker 2022, "Image Segmentation Using Text and Image Prompts"): text-prompted segmentation
on a frozen CLIP, after `CIDAS/clipseg-rd64-refined`, shrunk.

CLIPSegForImageSegmentation:
- the frozen CLIP ViT-B/16 image encoder runs on the query image (its learned position embeddings bicubically
  interpolated from the 224 px training grid to the 352 px inputs the processor makes); the activations of three
  intermediate layers (extract_layers 3, 6, 9) are tapped;
- the frozen CLIP text encoder (causal transformer, pooled at the first <|endoftext|>, projected) embeds the prompt;
- the light decoder (reduce_dim 64: "rd64"): each tapped activation is linearly reduced to 64 channels and added to
  the running output, deepest first; before the first decoder layer the prompt embedding modulates it by FiLM
  (film_mul * x + film_add); after each addition a small pre-LN transformer layer (4 heads, ReLU MLP) mixes the
  tokens; the patch tokens are reshaped to the grid and upsampled back to pixels by the "refined" transposed-conv
  head (conv 3 x 3, ReLU, ConvTranspose stride 4, ReLU, ConvTranspose stride 4), giving one mask logit per pixel.
Published: vision hidden 768, 12 layers, 12 heads, intermediate 3072, 224 px / patch 16 (14 x 14 grid), run at 352 px
(22 x 22); text hidden 512, 12 layers, 8 heads, intermediate 2048, vocab 49408 (bos 49406, eos 49407), 77 positions;
projection_dim 512; decoder reduce_dim 64, 4 heads, intermediate 2048, conditional_layer 0, complex transposed conv.
Shrunk: vision hidden 768 -> 128, 12 layers -> 4, 12 heads -> 4, intermediate 3072 -> 512, training grid 224 -> 80 px
(5 x 5) run at 128 px (8 x 8: the position embeddings are interpolated as for 224 -> 352), extract_layers (3, 6, 9)
-> (1, 2, 3) (same spacing relative to depth); text hidden 512 -> 128, 12 layers -> 2, 8 heads -> 4, intermediate
2048 -> 512, vocab 49408 -> 1000 (bos 998, eos 999); projection_dim 512 -> 128. Kept: patch 16, quick_gelu, 77
positions, the whole decoder (reduce_dim 64, 4 heads, intermediate 2048, FiLM at layer 0, refined upsampler).
Inputs (as CLIPSegProcessor returns them for one prompt per image): input_ids (2, 16) = <|startoftext|> prompt
<|endoftext|>, the second prompt right-padded with <|endoftext|> (the CLIP tokenizer's pad token); pixel_values
(2, 3, 128, 128); attention_mask (2, 16).
Output: mask logits (2, 128, 128).
"""
import torch
from torch import nn
from transformers import CLIPSegConfig, CLIPSegForImageSegmentation, CLIPSegTextConfig, CLIPSegVisionConfig

batch_size = 2
image_size = 128  # the processor's 352 in the published setup
seq_len = 16
vocab_size = 1000
bos_id, eos_id = 998, 999  # published 49406, 49407


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CLIPSegForImageSegmentation(config)

    def forward(self, input_ids, pixel_values, attention_mask):
        return self.model(input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, 990, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, 0] = bos_id
    input_ids[0, -1] = eos_id
    input_ids[1, -6] = eos_id
    input_ids[1, -5:] = eos_id  # padding
    attention_mask[1, -5:] = 0
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)  # normalized RGB (CLIP mean / std)
    return [input_ids, pixel_values, attention_mask]


def get_init_inputs():
    # CIDAS/clipseg-rd64-refined config.json. Kept: quick_gelu in both encoders (decoder_hidden_act is stored too,
    # but the decoder layers use ReLU whatever it says), layer_norm_eps 1e-5, logit_scale_init 2.6592, no dropout.
    text_config = CLIPSegTextConfig(
        vocab_size=vocab_size,  # published 49408
        hidden_size=128,  # published 512
        intermediate_size=512,  # published 2048
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 8
        max_position_embeddings=77,
        hidden_act="quick_gelu",
        bos_token_id=bos_id,  # published 49406
        eos_token_id=eos_id,  # published 49407
        pad_token_id=1,
    )
    vision_config = CLIPSegVisionConfig(
        hidden_size=128,  # published 768
        intermediate_size=512,  # published 3072
        num_hidden_layers=4,  # published 12
        num_attention_heads=4,  # published 12
        image_size=80,  # published 224
        patch_size=16,
        hidden_act="quick_gelu",
    )
    return [CLIPSegConfig(
        text_config=text_config,
        vision_config=vision_config,
        projection_dim=128,  # published 512
        logit_scale_init_value=2.6592,
        extract_layers=(1, 2, 3),  # published (3, 6, 9)
        reduce_dim=64,
        decoder_num_attention_heads=4,
        decoder_attention_dropout=0.0,
        decoder_hidden_act="quick_gelu",
        decoder_intermediate_size=2048,
        conditional_layer=0,
        use_complex_transposed_convolution=True,
    )]
