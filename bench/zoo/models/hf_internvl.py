"""InternVL3 (InternViT vision encoder + pixel-shuffle MLP projector + Qwen2.5 decoder, with dynamic high-resolution
tiling), after `OpenGVLab/InternVL3-1B-hf`, shrunk.

InternVLForConditionalGeneration:
- dynamic tiling (done by the image processor): each image is cut into the grid of square tiles whose aspect ratio
  best matches it (1..12 tiles), plus a thumbnail of the whole image when there is more than one tile; every tile is a
  separate row of pixel_values and gets its own run of <IMG_CONTEXT> tokens inside <img> ... </img> in the prompt;
- InternViT: conv patch embedding, a [CLS] token and learned absolute position embeddings, pre-LayerNorm blocks with
  biased q/k/v, GELU MLP and LayerScale (lambda_1 / lambda_2, init 0.1) on both residual branches;
- the last layer's patch tokens ([CLS] dropped) go through pixel shuffle (downsample_ratio 0.5: each 2 x 2 patch
  group is folded into the channels, 4x fewer tokens of 4x the width), then LayerNorm -> Linear -> GELU -> Linear into
  the LM width, and replace the <IMG_CONTEXT> embeddings;
- a Qwen2 decoder (RMSNorm, GQA with q/k/v bias, SwiGLU, RoPE theta 1e6) and an LM head tied to the embeddings.
Published: vision hidden 1024, 24 layers, 16 heads, intermediate 4096, 448 x 448 tiles / patch 14 (32 x 32 patches ->
256 tokens per tile); text hidden 896, 24 layers, 14 heads / 2 KV heads, intermediate 4864, vocab 151674
(<|endoftext|> 151643, <|im_start|> 151644, <|im_end|> 151645, <img> 151665, </img> 151666, <IMG_CONTEXT> 151667).
Shrunk: vision hidden 1024 -> 128, 24 layers -> 2, 16 heads -> 4, intermediate 4096 -> 512, tiles 448 -> 112 px
(8 x 8 patches -> 16 tokens per tile, image_seq_length 256 -> 16); text hidden 896 -> 128, 24 layers -> 2, 14 heads
-> 4, 2 KV heads kept, intermediate 4864 -> 688, vocab 151674 -> 1024 (special tokens moved to 1000..1005).
Kept: patch 14, LayerScale 0.1, qkv bias, no qk-norm, LayerNorm eps 1e-6, downsample_ratio 0.5, vision_feature_layer
-1, "default" strategy, GELU projector, rope theta 1e6, rms_norm_eps 1e-6, tied embeddings.
Inputs (as InternVLProcessor builds them from the chat template "<|im_start|>user\\n<image>\\n{question}<|im_end|>
\\n<|im_start|>assistant\\n"): pixel_values (4, 3, 112, 112) = sample 0's 2:1 image as 2 tiles + its thumbnail,
then sample 1's square image as a single tile; input_ids (2, 65) with 48 and 16 <IMG_CONTEXT> tokens and 6 and 10
question tokens, the second sample (37 tokens) right-padded with <|endoftext|>; attention_mask (2, 65).
Output: logits (2, 65, 1024).
"""
import torch
from torch import nn
from transformers import InternVLConfig, InternVLForConditionalGeneration, InternVLVisionConfig, Qwen2Config

batch_size = 2
tile_size = 112  # published 448
tokens_per_tile = (tile_size // 14 // 2) ** 2  # 16: 8 x 8 patches, pixel-shuffled 2 x 2 -> 4 x 4
tiles = (3, 1)  # 2 tiles + thumbnail; one tile (no thumbnail)
question_tokens = (6, 10)
vocab_size = 1024
pad_id, im_start_id, im_end_id, img_start_id, img_end_id, img_context_id = 1000, 1001, 1002, 1003, 1004, 1005
user_id, assistant_id, newline_id = 872, 91, 198  # "user", "assistant" (Qwen2 id 77091), "\n"


def _prompt(n_tiles, n_question):
    return (
        [im_start_id, user_id, newline_id, img_start_id] + [img_context_id] * (tokens_per_tile * n_tiles)
        + [img_end_id, newline_id] + torch.randint(0, 1000, (n_question,)).tolist()
        + [im_end_id, newline_id, im_start_id, assistant_id, newline_id]
    )


seq_len = max(len(_prompt(t, q)) for t, q in zip(tiles, question_tokens))  # 65


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = InternVLForConditionalGeneration(config)

    def forward(self, input_ids, pixel_values, attention_mask):
        return self.model(input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask).logits


def get_inputs():
    rows = [_prompt(t, q) for t, q in zip(tiles, question_tokens)]
    input_ids = torch.full((batch_size, seq_len), pad_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, row in enumerate(rows):
        input_ids[i, : len(row)] = torch.tensor(row)
        attention_mask[i, : len(row)] = 1
    # normalized RGB tiles (ImageNet mean / std), all images' tiles stacked in prompt order
    pixel_values = torch.randn(sum(tiles), 3, tile_size, tile_size)
    return [input_ids, pixel_values, attention_mask]


def get_init_inputs():
    # OpenGVLab/InternVL3-1B-hf config.json (vision: InternViT-300M-448px-V2.5; text: Qwen2.5-0.5B).
    vision_config = InternVLVisionConfig(
        hidden_size=128,  # published 1024
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        intermediate_size=512,  # published 4096
        image_size=tile_size,  # published 448
        patch_size=14,
        attention_bias=True,
        use_qk_norm=False,
        hidden_act="gelu",
        norm_type="layer_norm",
        layer_norm_eps=1e-6,
        layer_scale_init_value=0.1,
        use_absolute_position_embeddings=True,
        use_mean_pooling=True,
    )
    text_config = Qwen2Config(
        vocab_size=vocab_size,  # published 151674
        hidden_size=128,  # published 896
        intermediate_size=688,  # published 4864
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 14
        num_key_value_heads=2,
        hidden_act="silu",
        max_position_embeddings=32768,
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        use_sliding_window=False,
        tie_word_embeddings=True,
        bos_token_id=pad_id,  # published 151643
        eos_token_id=im_end_id,  # published 151645
    )
    return [InternVLConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_id=img_context_id,  # published 151667
        image_seq_length=tokens_per_tile,  # published 256
        downsample_ratio=0.5,
        projector_hidden_act="gelu",
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
        tie_word_embeddings=True,
    )]
