"""OmDet-Turbo open-vocabulary object detector (Zhao et al. 2024, "Real-time Transformer-based Open-Vocabulary
Detection with Efficient Fusion Head"): a Swin backbone (patch-4 embedding, shifted-window attention with relative
position bias, patch merging) whose stride 8 / 16 / 32 stage outputs are LayerNormed; an RT-DETR-style hybrid encoder
(1x1 conv + BatchNorm projections to a common width, one transformer layer (AIFI) on the stride-32 level with 2-D
sin-cos position embeddings, then a top-down FPN and a bottom-up PAN of CSP blocks with RepVGG 3x3 + 1x1 conv
branches, SiLU / GELU); a CLIP text transformer (causal, no padding mask) run on two kinds of prompts: each class name
separately (the hidden state at the end-of-text token, found as the argmax of the ids, times a text projection ->
class embedding) and one task sentence per image ("Detect cat, remote.", hidden states truncated to the longest
task); the efficient fusion head: language-guided query selection (every image token of the three levels becomes a
proposal: grid anchor with w / h 0.05 * 2^level in logit space plus a box MLP, scored by cosine similarity (scale
1/0.07) of its features with each of its image's class embeddings; top-k by max class score give the reference boxes
and the content queries), then decoder layers in which the task-sentence tokens (after a residual MLP task encoder and
a projection) are concatenated to the queries for self-attention (prompt fusion, task padding masked as keys) and
updated with them, multi-scale deformable cross-attention to the three levels (pure-PyTorch grid_sample path, no
custom kernel installed), an FFN, then per-layer box refinement in logit space and cosine class scores against the
class embeddings (padded class slots -> 0), after `omlab/omdet-turbo-swin-tiny-hf`, shrunk, with the transformers
Swin backbone and CLIP text model built with random weights from `backbone_config` / `text_config` (the published
config uses timm's swin_tiny_patch4_window7_224 and downloads it; nothing is downloaded here).

OmDetTurboForObjectDetection. Swin-T backbone: embed_dim 96 -> 32, depths (2, 2, 6, 2) -> (1, 1, 2, 1), heads
(3, 6, 12, 24) -> (1, 2, 4, 8) (head size 32 kept), 640 x 640 images -> 128 x 128 (levels 16 x 16, 8 x 8, 4 x 4 = 336
tokens); window 7 and patch 4 kept. The per-level LayerNorm after the backbone is the transformers SwinBackbone's own
output norm (hidden_states_norms, one LayerNorm per out stage), so apply_layernorm_after_vision_backbone is False here
(the OmDet-side LayerNorm expects timm's channels-last maps; the computation is the same). CLIP text
(openai/clip-vit-base-patch32 text tower): hidden 512 -> 128, 12 layers -> 2, 8 heads -> 4, intermediate 2048 -> 512,
vocab 49408 -> 1000 (start / end-of-text 49406 / 49407 -> 998 / 999, still the two largest ids), prompts padded to 77
-> 16 tokens. Head: encoder / decoder hidden 256 -> 64, 8 heads -> 4 (head size 32 -> 16), encoder ffn 2048 -> 256,
decoder ffn 2048 -> 256, 6 decoder layers -> 2, class_embed_dim / text projection 512 -> 128, task encoder hidden
1024 -> 256, 900 queries -> 100. Kept: 1 AIFI layer on level 3, 3 feature levels, 4 sampling points, cosine class
distance, learn_initial_query False, silu CSP / gelu conv-norm / relu FFN activations.
Inputs, as OmDetTurboProcessor returns them: pixel_values (2, 3, 128, 128); classes_input_ids / classes_attention_mask
(5, 16): the class names of both images flattened ("cat", "remote" for the first, "dog", "person", "car" for the
second; each <start> word <end> then padded with the end-of-text id, mask 0 on the padding); tasks_input_ids /
tasks_attention_mask (2, 16): "Detect cat, remote." (7 tokens) and "Detect dog, person, car." (9 tokens), padded the
same way; classes_structure (2,) = [2, 3].
Output: (decoder_class_logits (2, 100, 3): cosine logits of each query against its image's classes (the first image's
third slot is padding, logit 0), decoder_coord_logits (2, 100, 4): sigmoid boxes (normalized cx, cy, w, h)). The box
MLPs are re-initialized (see Model.__init__) so that the boxes are not exactly the grid anchors; the language caches
are emptied before every forward (see Model.forward) so that each call runs the text model.
"""
import torch
from torch import nn
from transformers import CLIPTextConfig, OmDetTurboConfig, OmDetTurboForObjectDetection, SwinConfig

batch_size = 2
image_size = 128  # published 640
prompt_len = 16  # published 77 (the processor pads to max_length)
vocab_size = 1000
sot_id, eot_id = 998, 999  # published 49406, 49407 (CLIP BPE: the two largest ids); padding uses eot
# Stand-in BPE ids for the words of the prompts.
detect, comma, period = 310, 11, 13
cat, remote, dog, person, car = 520, 731, 644, 402, 389
classes = [[cat], [remote], [dog], [person], [car]]  # flattened over the batch
classes_per_image = [2, 3]
tasks = [[detect, cat, comma, remote, period], [detect, dog, comma, person, comma, car, period]]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = OmDetTurboForObjectDetection(config)
        # transformers zero-initializes the last layer of the encoder box MLP and of every decoder box MLP (as the
        # original code does), so every predicted box is exactly its selected grid anchor. Stand in for trained
        # weights: those MLPs' linears get PyTorch's default initialization.
        decoder = self.model.decoder
        for head in [decoder.encoder_bbox_head, *decoder.decoder_bbox_head]:
            for layer in head.layers:
                layer.reset_parameters()

    def forward(self, pixel_values, classes_input_ids, classes_attention_mask, tasks_input_ids, tasks_attention_mask,
                classes_structure):
        # OmDet-Turbo keeps LRU caches of class / task embeddings keyed by token ids (a serving optimization); empty
        # them so that every call computes the text embeddings from the current weights.
        for cache in (self.model.language_cache_class, self.model.language_cache_prompt):
            cache.cache.clear()
            cache.current_load = 0
        out = self.model(
            pixel_values=pixel_values,
            classes_input_ids=classes_input_ids,
            classes_attention_mask=classes_attention_mask,
            tasks_input_ids=tasks_input_ids,
            tasks_attention_mask=tasks_attention_mask,
            classes_structure=classes_structure,
        )
        return out.decoder_class_logits, out.decoder_coord_logits


def _encode(prompts):
    input_ids = torch.full((len(prompts), prompt_len), eot_id, dtype=torch.long)
    attention_mask = torch.zeros(len(prompts), prompt_len, dtype=torch.long)
    for i, words in enumerate(prompts):
        ids = [sot_id, *words, eot_id]
        input_ids[i, : len(ids)] = torch.tensor(ids)
        attention_mask[i, : len(ids)] = 1
    return input_ids, attention_mask


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    classes_input_ids, classes_attention_mask = _encode(classes)
    tasks_input_ids, tasks_attention_mask = _encode(tasks)
    classes_structure = torch.tensor(classes_per_image, dtype=torch.long)
    return [pixel_values, classes_input_ids, classes_attention_mask, tasks_input_ids, tasks_attention_mask,
            classes_structure]


def get_init_inputs():
    # omlab/omdet-turbo-swin-tiny-hf config.json. Kept: Swin-T patch 4, window 7, mlp_ratio 4, gelu, qkv_bias, no
    # absolute position embedding, out stages 2-4; CLIP text quick_gelu, 77 positions, layer_norm_eps 1e-5; OmDet:
    # encoder_layers 1, encoder_projection_indices [2], num_feature_levels 3, decoder_num_points 4,
    # class_distance_type "cosine", csp_activation silu, conv_norm_activation gelu, encoder / decoder activations
    # relu, hidden_expansion 1, positional_encoding_temperature 10000, learn_initial_query False, dropouts 0,
    # layer_norm_eps / batch_norm_eps 1e-5, init_std 0.02, eval_size None, cache_size 100.
    backbone_config = SwinConfig(
        image_size=image_size,  # published 640
        patch_size=4,
        embed_dim=32,  # published 96
        depths=[1, 1, 2, 1],  # published [2, 2, 6, 2]
        num_heads=[1, 2, 4, 8],  # published [3, 6, 12, 24]
        window_size=7,
        mlp_ratio=4.0,
        qkv_bias=True,
        hidden_act="gelu",
        use_absolute_embeddings=False,
        out_features=["stage2", "stage3", "stage4"],
    )
    text_config = CLIPTextConfig(
        vocab_size=vocab_size,  # published 49408
        hidden_size=128,  # published 512
        intermediate_size=512,  # published 2048
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 8
        max_position_embeddings=77,
        hidden_act="quick_gelu",
        layer_norm_eps=1e-5,
        projection_dim=128,  # published 512 (unused: OmDet has its own text projection)
        bos_token_id=sot_id,  # published 49406
        eos_token_id=eot_id,  # published 49407
        pad_token_id=eot_id,
    )
    return [OmDetTurboConfig(
        backbone_config=backbone_config,
        text_config=text_config,
        apply_layernorm_after_vision_backbone=False,  # published True (timm backbone); see the docstring
        image_size=image_size,  # published 640
        encoder_in_channels=[64, 128, 256],  # published [192, 384, 768] (Swin stage 2-4 widths)
        encoder_hidden_dim=64,  # published 256
        vision_features_channels=[64, 64, 64],  # published [256, 256, 256]
        encoder_attention_heads=4,  # published 8
        encoder_dim_feedforward=256,  # published 2048
        encoder_layers=1,
        encoder_projection_indices=[2],
        decoder_hidden_dim=64,  # published 256
        decoder_num_heads=4,  # published 8
        decoder_num_layers=2,  # published 6
        decoder_dim_feedforward=256,  # published 2048
        decoder_num_points=4,
        num_feature_levels=3,
        num_queries=100,  # published 900
        text_projection_in_dim=128,  # published 512
        text_projection_out_dim=128,  # published 512
        class_embed_dim=128,  # published 512
        task_encoder_hidden_dim=256,  # published 1024
        class_distance_type="cosine",
        csp_activation="silu",
        conv_norm_activation="gelu",
        encoder_feedforward_activation="relu",
        decoder_activation="relu",
        hidden_expansion=1,
        positional_encoding_temperature=10000,
        learn_initial_query=False,
        encoder_dropout=0.0,
        encoder_feedforward_dropout=0.0,
        decoder_dropout=0.0,
        layer_norm_eps=1e-5,
        batch_norm_eps=1e-5,
        cache_size=100,
    )]
