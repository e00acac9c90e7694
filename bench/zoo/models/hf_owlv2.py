"""OWLv2 open-vocabulary object detector (CLIP-style towers: a ViT-B/16 image encoder (CLS token, pre- and post-
LayerNorm, quick_gelu) and a causal text transformer over the text queries, pooled at the highest token id (the eos)
and projected; no decoder: every image patch is a box proposal. The patch tokens are multiplied by the CLS token and
layer-normed; per patch, a class head (linear embedding, L2-normalized, dotted with each normalized query embedding,
plus a learned per-patch shift, times a learned per-patch ELU+1 scale; queries whose first token id is 0 are masked),
a 3-layer MLP box head plus a fixed box bias (inverse-sigmoid of the patch's grid position and of the patch size),
sigmoid -> cxcywh, and an objectness head (the same MLP shape, on detached features)), after
`google/owlv2-base-patch16`, shrunk.

Owlv2ForObjectDetection.
Vision: hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4 (head_dim 64 -> 16), intermediate 3072 -> 256, image 960 x 960
-> 128 x 128 (patch 16 kept: 60 x 60 -> 8 x 8 patches = box proposals). Text: hidden 512 -> 64, 12 layers -> 2,
8 heads -> 4 (head_dim 64 -> 16), intermediate 2048 -> 256, vocab 49408 -> 1000 (bos 49406 -> 998, eos 49407 -> 999:
the eos stays the highest id, where the text tower pools; pad "!" = 0 kept). projection_dim 512 -> 64 (= text hidden,
as the class head needs). Kept: 16 text positions, quick_gelu, layer_norm_eps 1e-5, logit_scale_init 2.6592.
Inputs, as Owlv2Processor returns them for text=[[q0, q1, q2], [q0, q1]] and two images: input_ids (6, 16) =
batch * max_text_queries (the second image's query list is padded with " ", which tokenizes to bos, eos) each
padded to 16 with 0, attention_mask (6, 16); pixel_values (2, 3, 128, 128), the second image taller than wide, so
Owlv2ImageProcessor padded its right quarter with gray (0.5, then CLIP-normalized) to a square before resizing.
Outputs: logits (2, 64, 3) (per patch and query), pred_boxes (2, 64, 4) (cxcywh in [0, 1]), objectness_logits
(2, 64). The three heads are re-initialized (see Model.__init__): the library's N(0, 1) init saturates every box.
"""
import torch
from torch import nn
from transformers import Owlv2Config, Owlv2ForObjectDetection, Owlv2TextConfig, Owlv2VisionConfig

batch_size = 2
image_size = 128
patch_size = 16
num_queries = 3  # max text queries per image
text_len = 16
vocab_size = 1000
bos_token_id, eos_token_id, pad_token_id = 998, 999, 0  # published 49406, 49407, 0
clip_mean = (0.48145466, 0.4578275, 0.40821073)
clip_std = (0.26862954, 0.26130258, 0.27577711)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Owlv2ForObjectDetection(config)
        # The library's init leaves the class, box and objectness heads' linear layers N(0, 1) (initializer_factor
        # 1.0), so with random weights (at any width) the 3-layer box MLP's outputs are ~100s, every box saturates
        # its sigmoid at 0 or 1 and the objectness logits are ~300. Stand in for trained heads: N(0, 0.02) weights
        # (the towers' initializer_range) and zero biases, so that boxes sit near their patch's grid position and
        # size (the box bias) and the logits are O(1).
        for head in (self.model.class_head, self.model.box_head, self.model.objectness_head):
            for module in head.modules():
                if isinstance(module, nn.Linear):
                    nn.init.normal_(module.weight, std=0.02)
                    nn.init.zeros_(module.bias)

    def forward(self, input_ids, pixel_values, attention_mask):
        out = self.model(input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask)
        return out.logits, out.pred_boxes, out.objectness_logits


def get_inputs():
    # queries "a photo of a cat"-style: bos, words, eos, then pad; the last query of image 1 is the " " filler
    query_lengths = [5, 7, 4, 6, 3, 0]
    input_ids = torch.full((batch_size * num_queries, text_len), pad_token_id)
    attention_mask = torch.zeros(batch_size * num_queries, text_len, dtype=torch.long)
    for i, n in enumerate(query_lengths):
        input_ids[i, 0] = bos_token_id
        input_ids[i, 1 : n + 1] = torch.randint(1, bos_token_id, (n,))
        input_ids[i, n + 1] = eos_token_id
        attention_mask[i, : n + 2] = 1
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    gray = torch.tensor([(0.5 - m) / s for m, s in zip(clip_mean, clip_std)])
    pixel_values[1, :, :, -image_size // 4 :] = gray[:, None, None]
    return [input_ids, pixel_values, attention_mask]


def get_init_inputs():
    # google/owlv2-base-patch16 config.json. Kept: patch 16, quick_gelu, layer_norm_eps 1e-5, text
    # max_position_embeddings 16, pad 0, logit_scale_init_value 2.6592.
    text_config = Owlv2TextConfig(
        vocab_size=vocab_size,  # published 49408
        hidden_size=64,  # published 512
        intermediate_size=256,  # published 2048
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 8
        max_position_embeddings=text_len,
        bos_token_id=bos_token_id,  # published 49406
        eos_token_id=eos_token_id,  # published 49407
    )
    vision_config = Owlv2VisionConfig(
        hidden_size=64,  # published 768
        intermediate_size=256,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        image_size=image_size,  # published 960
        patch_size=patch_size,
    )
    return [Owlv2Config(
        text_config=text_config,
        vision_config=vision_config,
        projection_dim=64,  # published 512
    )]
