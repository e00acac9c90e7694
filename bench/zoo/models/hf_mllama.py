"""Llama 3.2 Vision (Mllama: a tiled ViT-H/14-style vision encoder feeding gated cross-attention layers interleaved
into a Llama 3.1 text decoder), after `meta-llama/Llama-3.2-11B-Vision-Instruct`, shrunk.

MllamaForConditionalGeneration. Vision (MllamaVisionModel): each image is cut by the processor into up to 4 tiles
(aspect ratio chosen from the 8 supported tile grids, given to the model as aspect_ratio_ids; unused tiles are zero
and masked by aspect_ratio_mask); bias-free patch-embedding conv (patch 14); a gated pre-tile aspect-ratio embedding;
a CLS token per tile; gated position embedding (learned patch positions mixed by tanh(gate) with a per-aspect-ratio
tile-position embedding); pre-LayerNorm; patches padded to a multiple of 8 per tile; a local transformer (pre-LN,
GELU MLP, bidirectional attention inside each tile only: the mask is built from aspect_ratio_mask and the padding);
post-LayerNorm; a gated post-tile aspect-ratio embedding; a global transformer over all tiles of an image whose
layers scale the attention and MLP outputs by tanh(gate); the final states concatenated with the states after
selected local layers (intermediate_layers_indices) -> vision_output_dim; a linear projector to the text width.
Text (MllamaTextModel): Llama 3.1 decoder (GQA, RoPE theta 5e5 with llama3 scaling, SwiGLU, RMSNorm) in which every
5th layer starting at layer 3 is a cross-attention layer instead of self-attention: text queries attend to all
vision tokens of the sample's images (keys / values RMS-normed per head), the attention and MLP outputs scaled by
tanh(cross_attn_attn_gate) / tanh(cross_attn_mlp_gate); cross_attention_mask (which text tokens see which image's
tiles) is expanded to the vision tokens, and text rows that see no image (the tokens before <|image|>) get their
cross-attention MLP output zeroed (full_text_row_masked_out_mask). The embedding table has vocab + 8 rows (the
<|image|> token lies past the LM head vocab); untied LM head.
Vision: hidden 1280 -> 64, local layers 32 -> 4, global layers 8 -> 2, 16 heads -> 4 (head_dim 80 -> 16),
intermediate 5120 -> 256, intermediate_layers_indices [3, 7, 15, 23, 30] -> [0, 1, 2] (vision_output_dim 7680 =
1280 x 6 -> 256 = 64 x 4), tile size 560 -> 112 (patch 14 kept: 40 x 40 + 1 = 1601 -> 8 x 8 + 1 = 65 tokens per
tile, padded to 72 inside the encoder); max_num_tiles 4 and the 8 supported aspect ratios kept.
Text: hidden 4096 -> 128, 40 layers -> 5 (cross_attention_layers [3, 8, ..., 38] -> [3]: layers 0-2 and 4
self-attention, layer 3 cross-attention, the published period of 5 kept), 32 heads -> 4, 8 kv heads -> 1 (4:1 GQA
kept; head_dim 128 -> 32), intermediate 14336 -> 448 (3.5x kept), vocab 128256 -> 1000: every Llama 3 special id k
in 128000-128255 -> k - 127256 (<|begin_of_text|> 128000 -> 744, <|finetune_right_pad_id|> 128004 -> 748,
<|start_header_id|> 128006 -> 750, <|end_header_id|> 128007 -> 751, <|eot_id|> 128009 -> 753), <|image|> 128256 ->
1000. Token ids of ordinary words ("user" 882, "\\n\\n" 271 kept; "assistant" 78191 -> stand-in 600) are otherwise
random.
Inputs, as MllamaProcessor + the chat template build them for
"<|begin_of_text|><|start_header_id|>user<|end_header_id|>\\n\\n<|image|>{prompt}<|eot_id|><|start_header_id|>
assistant<|end_header_id|>\\n\\n" with one image per sample:
- sample 0: a square image split into 2 x 2 tiles (aspect ratio (2, 2) -> aspect_ratio_id 6, 4 tiles), 20-token
  prompt (31 tokens);
- sample 1: a wide image split into 1 x 2 tiles (aspect ratio (1, 2) -> aspect_ratio_id 2, tiles 3-4 zero and
  masked), 12-token prompt (23 tokens), right-padded with 748 to 31.
input_ids (2, 31), attention_mask (2, 31), pixel_values (2, 1, 4, 3, 112, 112), aspect_ratio_ids (2, 1),
aspect_ratio_mask (2, 1, 4), cross_attention_mask (2, 31, 1, 4) (1 from the <|image|> token to the end of the
padded sequence for the image's real tiles, as the processor builds it; 0 before the image token).
Output: LM logits (2, 31, 1000).
All the tanh gates that transformers initializes to 0 (the cross-attention layers' attention / MLP gates, the pre-
and post-tile aspect-ratio embedding gates and the tile-position embedding gate) would make the image not reach the
text at all; Model.__init__ sets them to pi / 4 (tanh = 0.66, the value MllamaVisionEncoderLayer's constructor gives
the global layers' gates) as a stand-in for trained gates.
"""
import math

import torch
from torch import nn
from transformers import MllamaConfig, MllamaForConditionalGeneration, MllamaTextConfig, MllamaVisionConfig
from transformers.models.mllama.modeling_mllama import (
    MllamaCrossAttentionDecoderLayer,
    MllamaPrecomputedAspectRatioEmbedding,
    MllamaPrecomputedPositionEmbedding,
)

batch_size = 2
image_size = 112  # tile size; published 560
max_num_tiles = 4
vocab_size = 1000  # published 128256
bos_token_id = 744  # <|begin_of_text|>, published 128000
eos_token_id = 745  # <|end_of_text|>, published 128001
pad_token_id = 748  # <|finetune_right_pad_id|>, published 128004
start_header_id = 750  # published 128006
end_header_id = 751  # published 128007
eom_id = 752  # <|eom_id|>, published 128008
eot_id = 753  # <|eot_id|>, published 128009
image_token_id = 1000  # <|image|>, published 128256
user_id, assistant_id, double_newline_id = 882, 600, 271  # "user", "assistant" (stand-in), "\n\n"
supported_aspect_ratios = [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MllamaForConditionalGeneration(config)
        # Stand-in for trained gates (see the module docstring): transformers initializes these tanh gates to 0.
        for module in self.model.modules():
            if isinstance(module, MllamaCrossAttentionDecoderLayer):
                nn.init.constant_(module.cross_attn_attn_gate, math.pi / 4)
                nn.init.constant_(module.cross_attn_mlp_gate, math.pi / 4)
            elif isinstance(module, (MllamaPrecomputedAspectRatioEmbedding, MllamaPrecomputedPositionEmbedding)):
                nn.init.constant_(module.gate, math.pi / 4)

    def forward(
        self, input_ids, attention_mask, pixel_values, aspect_ratio_ids, aspect_ratio_mask, cross_attention_mask
    ):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            pixel_values=pixel_values,
            aspect_ratio_ids=aspect_ratio_ids,
            aspect_ratio_mask=aspect_ratio_mask,
            cross_attention_mask=cross_attention_mask,
        ).logits


def _prompt(prompt_len):
    text = torch.randint(0, 744, (prompt_len,)).tolist()
    ids = [bos_token_id, start_header_id, user_id, end_header_id, double_newline_id, image_token_id, *text]
    ids += [eot_id, start_header_id, assistant_id, end_header_id, double_newline_id]
    return torch.tensor(ids)


def get_inputs():
    first = _prompt(20)  # 31 tokens
    second = _prompt(12)  # 23 tokens
    seq_len = first.numel()
    n = second.numel()
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    input_ids[0] = first
    attention_mask[0] = 1
    input_ids[1, :n] = second
    attention_mask[1, :n] = 1
    num_tiles = [4, 2]  # (2, 2) grid, (1, 2) grid
    # MllamaImageProcessor's ids: index of the (rows, cols) grid in the supported list + 1 (0 = no image)
    aspect_ratio_ids = torch.tensor([[supported_aspect_ratios.index(grid) + 1] for grid in ([2, 2], [1, 2])])
    pixel_values = torch.zeros(batch_size, 1, max_num_tiles, 3, image_size, image_size)
    aspect_ratio_mask = torch.zeros(batch_size, 1, max_num_tiles, dtype=torch.long)
    cross_attention_mask = torch.zeros(batch_size, seq_len, 1, max_num_tiles, dtype=torch.long)
    image_pos = 5  # position of <|image|>
    for i, tiles in enumerate(num_tiles):
        pixel_values[i, 0, :tiles] = torch.rand(tiles, 3, image_size, image_size) * 2 - 1  # normalized tiles
        aspect_ratio_mask[i, 0, :tiles] = 1
        cross_attention_mask[i, image_pos:, 0, :tiles] = 1  # single image: attended until the end (padding included)
    return [input_ids, attention_mask, pixel_values, aspect_ratio_ids, aspect_ratio_mask, cross_attention_mask]


def get_init_inputs():
    # meta-llama/Llama-3.2-11B-Vision-Instruct config.json. Kept: vision patch 14, gelu, norm_eps 1e-5, max_num_tiles
    # 4, the 8 supported aspect ratios, initializer_range 0.02; text silu, rms_norm_eps 1e-5, rope_theta 5e5 with
    # llama3 rope scaling (factor 8, low / high freq factors 1 / 4, original max positions 8192),
    # max_position_embeddings 131072, cross-attention every 5th layer from layer 3, untied LM head, dropout 0.
    vision_config = MllamaVisionConfig(
        hidden_size=64,  # published 1280
        hidden_act="gelu",
        num_hidden_layers=4,  # published 32
        num_global_layers=2,  # published 8
        attention_heads=4,  # published 16
        num_channels=3,
        intermediate_size=256,  # published 5120
        vision_output_dim=256,  # published 7680 (= hidden x (1 + len(intermediate_layers_indices)))
        image_size=image_size,  # published 560
        patch_size=14,
        norm_eps=1e-5,
        max_num_tiles=max_num_tiles,
        intermediate_layers_indices=[0, 1, 2],  # published [3, 7, 15, 23, 30]
        supported_aspect_ratios=supported_aspect_ratios,
    )
    text_config = MllamaTextConfig(
        vocab_size=vocab_size,  # published 128256
        hidden_size=128,  # published 4096
        hidden_act="silu",
        num_hidden_layers=5,  # published 40
        num_attention_heads=4,  # published 32
        num_key_value_heads=1,  # published 8
        intermediate_size=448,  # published 14336
        rope_parameters={
            "rope_type": "llama3",
            "rope_theta": 500000.0,
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        rms_norm_eps=1e-5,
        max_position_embeddings=131072,
        tie_word_embeddings=False,
        cross_attention_layers=[3],  # published [3, 8, 13, 18, 23, 28, 33, 38]
        dropout=0.0,
        bos_token_id=bos_token_id,  # published 128000
        eos_token_id=[eos_token_id, eom_id, eot_id],  # published [128001, 128008, 128009]
        pad_token_id=pad_token_id,  # published 128004
    )
    return [MllamaConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_index=image_token_id,  # published 128256
    )]
