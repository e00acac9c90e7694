"""SmolVLM (Idefics3-style VLM: a SigLIP vision tower with NaViT-style bucketed position ids (for variable-resolution
images, with a per-patch attention mask), run only on the real images of a batch (all-zero padding images are dropped
by a data-dependent mask); a pixel-shuffle connector (space-to-depth by 4: each 4 x 4 block of patch features is folded
into one token of 16x the width, then one bias-free linear layer to the text width); the image tokens' embeddings
replaced by those features with masked_scatter; a Llama decoder (GQA, RoPE, SwiGLU, RMSNorm) with an untied LM head),
after `HuggingFaceTB/SmolVLM-256M-Instruct`, shrunk.

SmolVLMForConditionalGeneration.
Vision (SigLIP-B/16-512): hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4 (head_dim 64 -> 16), intermediate
3072 -> 256, image (tile) size 512 -> 128 (patch 16 kept: 8 x 8 patches; scale_factor 4 kept: image_seq_len
64 -> 4 tokens per tile). Text (SmolLM2-135M): hidden 576 -> 144, 30 layers -> 2, 9 heads / 3 kv heads kept (head_dim
64 -> 16), intermediate 1536 -> 384, vocab 49280 -> 1080 (every special id published - 48200: <global-img> 49152 ->
952, <row_1_col_1> 49153 -> 953, <row_1_col_2> 49154 -> 954, <fake_token_around_image> 49189 -> 989, <image> 49190
-> 990, <end_of_utterance> 49279 -> 1079; <|im_start|> 1 and <|im_end|> 2 (also the pad) kept).
Inputs, laid out as SmolVLMProcessor + the chat template return them for the prompt
"<|im_start|>User:<image>{prompt}<end_of_utterance>\nAssistant:":
- sample 0: a wide image split into a 1 x 2 grid of tiles plus the downscaled global image (3 images), expanded
  in the text as <fake><row_1_col_1><image>*4 <fake><row_1_col_2><image>*4 \n \n <fake><global-img><image>*4 <fake>,
  and a 10-token prompt;
- sample 1: a small image that is not split (the global image only, 1 image; its two missing images are all-zero
  padding with a False pixel_attention_mask), <fake><global-img><image>*4<fake>, and a 20-token prompt,
  left-padded by 4 tokens (batched generation pads left).
input_ids (2, 38), attention_mask (2, 38), pixel_values (2, 3, 3, 128, 128), pixel_attention_mask (2, 3, 128, 128).
Output: LM logits (2, 38, 1080).
"""
import torch
from torch import nn
from transformers import LlamaConfig, SmolVLMConfig, SmolVLMForConditionalGeneration, SmolVLMVisionConfig

batch_size = 2
image_size = 128  # tile size; published 512
patch_size = 16
scale_factor = 4
image_seq_len = (image_size // patch_size) ** 2 // scale_factor**2  # 4; published 64
max_num_images = 3  # 1 x 2 tiles + global image
vocab_size = 1080  # published 49280
im_start_id, im_end_id = 1, 2
pad_token_id = im_end_id
newline_id = 198  # stand-in for "\n" (like the ids below, not checked against the published tokenizer)
global_img_id = 952  # published 49152
row_col_ids = {(1, 1): 953, (1, 2): 954}  # published 49153, 49154
fake_image_id = 989  # published 49189
image_token_id = 990  # published 49190
end_of_utterance_id = 1079  # published 49279
user_ids = [325, 42]  # stand-ins for "User", ":"
assistant_ids = [519, 42]  # stand-ins for "Assistant", ":"


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SmolVLMForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, pixel_attention_mask):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            pixel_values=pixel_values,
            pixel_attention_mask=pixel_attention_mask,
        ).logits


def _image_block(rows, cols):
    # SmolVLMProcessor's expansion of one <image> into tiles (row by row) and the global image
    block = []
    if rows * cols > 0:
        for r in range(1, rows + 1):
            for c in range(1, cols + 1):
                block += [fake_image_id, row_col_ids[(r, c)]] + [image_token_id] * image_seq_len
            block += [newline_id]
        block += [newline_id]
    return block + [fake_image_id, global_img_id] + [image_token_id] * image_seq_len + [fake_image_id]


def _prompt(rows, cols, prompt_len):
    text = torch.randint(3, 900, (prompt_len,)).tolist()
    ids = [im_start_id] + user_ids + _image_block(rows, cols) + text + [end_of_utterance_id, newline_id] + assistant_ids
    return torch.tensor(ids)


def get_inputs():
    first = _prompt(1, 2, 10)  # 38 tokens
    second = _prompt(0, 0, 20)  # 34 tokens
    seq_len = first.numel()
    pad = seq_len - second.numel()
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[0] = first
    input_ids[1, pad:] = second
    attention_mask[1, :pad] = 0
    pixel_values = torch.zeros(batch_size, max_num_images, 3, image_size, image_size)
    pixel_attention_mask = torch.zeros(batch_size, max_num_images, image_size, image_size, dtype=torch.bool)
    pixel_values[0] = torch.randn(3, 3, image_size, image_size)  # two tiles, then the global image
    pixel_attention_mask[0] = True
    pixel_values[1, 0] = torch.randn(3, image_size, image_size)  # the global image only
    pixel_attention_mask[1, 0] = True
    return [input_ids, attention_mask, pixel_values, pixel_attention_mask]


def get_init_inputs():
    # HuggingFaceTB/SmolVLM-256M-Instruct config.json. Kept: SigLIP patch 16, gelu_pytorch_tanh, layer_norm_eps 1e-6;
    # pixel-shuffle scale_factor 4; Llama GQA 9 heads / 3 kv heads, silu, rms_norm_eps 1e-5, rope_theta 1e5,
    # max_position_embeddings 8192, no attention / MLP bias, untied LM head, bos <|im_start|> 1, eos / pad
    # <|im_end|> 2.
    vision_config = SmolVLMVisionConfig(
        hidden_size=64,  # published 768
        intermediate_size=256,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        image_size=image_size,  # published 512
        patch_size=patch_size,
    )
    text_config = LlamaConfig(
        vocab_size=vocab_size,  # published 49280
        hidden_size=144,  # published 576
        intermediate_size=384,  # published 1536
        num_hidden_layers=2,  # published 30
        num_attention_heads=9,
        num_key_value_heads=3,
        head_dim=16,  # published 64
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 100000.0},
        max_position_embeddings=8192,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,
        bos_token_id=im_start_id,
        eos_token_id=im_end_id,
    )
    return [SmolVLMConfig(
        vision_config=vision_config,
        text_config=text_config,
        scale_factor=scale_factor,
        image_token_id=image_token_id,  # published 49190
        pad_token_id=pad_token_id,
    )]
