"""Idefics3 vision-language model (Laurencon et al. 2024, "Building and better understanding vision-language models:
insights and future directions"), after `HuggingFaceM4/Idefics3-8B-Llama3`, shrunk.

Idefics3ForConditionalGeneration. Images are split by the processor into square tiles plus a downscaled global image;
all images of a sample are stacked in pixel_values (batch, max_num_images, 3, H, W), samples with fewer images padded
with all-zero images. Vision (SigLIP-so400m-style, Idefics3VisionTransformer): the all-zero padding images are
dropped by a data-dependent boolean index; the pixel_attention_mask is unfolded into a per-patch mask; patch-embedding
conv (patch 14), NaViT-style position ids (fractional patch coordinates bucketized onto the position grid, per
image), pre-LN encoder layers with bidirectional attention (gelu_pytorch_tanh MLP), post LayerNorm. Connector:
pixel shuffle (space-to-depth by scale_factor 2: each 2 x 2 block of patch features becomes one token 4x as wide)
and one bias-free linear layer to the text width. The embeddings of the <image> tokens are replaced
(masked_scatter) by the image features, in image order. Text: Llama 3.1 decoder (GQA 4:1, RoPE theta 5e5 with
llama3 rope scaling, SwiGLU, RMSNorm), untied LM head.
Vision: hidden 1152 -> 64, 27 layers -> 2, 16 heads -> 4 (head_dim 72 -> 16), intermediate 4304 -> 256, tile size
364 -> 112 (patch 14 kept: 26 x 26 -> 8 x 8 patches; scale_factor 2 kept: image_seq_len 169 -> 16 tokens per image).
Text (Llama 3.1 8B): hidden 4096 -> 128, 32 layers -> 2, 32 heads -> 4, 8 kv heads -> 1 (the 4:1 GQA kept; head_dim
128 -> 32), intermediate 14336 -> 448 (3.5x kept), vocab 128259 -> 1003: the 128256 Llama 3 ids -> 1000, so every
Llama 3 special id k in 128000-128255 -> k - 127256 (<|begin_of_text|> 128000 -> 744, pad 128002 -> 746), and
the three added tokens follow them: <fake_token_around_image> 128256 -> 1000, <image> 128257 -> 1001,
<end_of_utterance> 128258 -> 1002. <global-img> and <row_r_col_c> sit in the Llama 3 reserved-special-token range;
their exact published ids were not checked, stand-ins 750 and 751 + 6 * (r - 1) + (c - 1) are used (as are ids for
"User", ":", "Assistant", "\\n" below).
Inputs, laid out as Idefics3Processor + the chat template return them for
"<|begin_of_text|>User:<image>{prompt}<end_of_utterance>\\nAssistant:" (images split: do_image_splitting True):
- sample 0: a square image split into a 2 x 2 grid of tiles plus the global image (5 images), expanded as
  [<fake><row_r_col_c><image>*16] x 2 \\n, twice, then \\n <fake><global-img><image>*16<fake>; a 10-token prompt
  (111 tokens, 80 image tokens);
- sample 1: a wide image split into a 1 x 2 grid plus the global image (3 images; images 4 and 5 are all-zero
  padding with a False pixel_attention_mask); a 20-token prompt (84 tokens, 48 image tokens), right-padded with
  pad 746 to 111 tokens.
input_ids (2, 111), attention_mask (2, 111), pixel_values (2, 5, 3, 112, 112) (rescaled and normalized with mean
0.5 / std 0.5, so in [-1, 1]), pixel_attention_mask (2, 5, 112, 112) bool.
Output: LM logits (2, 111, 1003).
"""
import torch
from torch import nn
from transformers import Idefics3Config, Idefics3ForConditionalGeneration, Idefics3VisionConfig, LlamaConfig

batch_size = 2
image_size = 112  # tile size; published 364
patch_size = 14
scale_factor = 2
image_seq_len = (image_size // patch_size) ** 2 // scale_factor**2  # 16; published 169
max_num_images = 5  # 2 x 2 tiles + global image
vocab_size = 1003  # published 128259
bos_token_id = 744  # <|begin_of_text|>, published 128000
eos_token_id = 745  # <|end_of_text|>, published 128001
pad_token_id = 746  # published 128002
fake_image_id = 1000  # <fake_token_around_image>, published 128256
image_token_id = 1001  # <image>, published 128257
end_of_utterance_id = 1002  # <end_of_utterance>, published 128258
global_img_id = 750  # <global-img> (stand-in in the reserved-special-token range)
newline_id = 198  # stand-in for "\n"
user_ids = [100, 25]  # stand-ins for "User", ":"
assistant_ids = [300, 25]  # stand-ins for "Assistant", ":"


def _row_col_id(r, c):
    return 751 + 6 * (r - 1) + (c - 1)  # <row_r_col_c> stand-ins, r, c in 1..6


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Idefics3ForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, pixel_attention_mask):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            pixel_values=pixel_values,
            pixel_attention_mask=pixel_attention_mask,
        ).logits


def _image_block(rows, cols):
    # Idefics3Processor.replace_image_token for a split image (rows x cols tiles, then the global image)
    block = []
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            block += [fake_image_id, _row_col_id(r, c)] + [image_token_id] * image_seq_len
        block += [newline_id]
    return block + [newline_id, fake_image_id, global_img_id] + [image_token_id] * image_seq_len + [fake_image_id]


def _prompt(rows, cols, prompt_len):
    text = torch.randint(0, 700, (prompt_len,)).tolist()
    ids = [bos_token_id, *user_ids, *_image_block(rows, cols), *text, end_of_utterance_id, newline_id]
    return torch.tensor(ids + assistant_ids)


def get_inputs():
    first = _prompt(2, 2, 10)  # 111 tokens
    second = _prompt(1, 2, 20)  # 84 tokens
    seq_len = first.numel()
    n = second.numel()
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    input_ids[0] = first
    attention_mask[0] = 1
    input_ids[1, :n] = second
    attention_mask[1, :n] = 1
    pixel_values = torch.zeros(batch_size, max_num_images, 3, image_size, image_size)
    pixel_attention_mask = torch.zeros(batch_size, max_num_images, image_size, image_size, dtype=torch.bool)
    pixel_values[0] = torch.rand(5, 3, image_size, image_size) * 2 - 1  # four tiles, then the global image
    pixel_attention_mask[0] = True
    pixel_values[1, :3] = torch.rand(3, 3, image_size, image_size) * 2 - 1  # two tiles, then the global image
    pixel_attention_mask[1, :3] = True
    return [input_ids, attention_mask, pixel_values, pixel_attention_mask]


def get_init_inputs():
    # HuggingFaceM4/Idefics3-8B-Llama3 config.json. Kept: SigLIP patch 14, gelu_pytorch_tanh, layer_norm_eps 1e-6;
    # scale_factor 2; Llama 3.1: GQA 4:1, silu, rms_norm_eps 1e-5, rope_theta 5e5 with llama3 rope scaling (factor 8,
    # low / high freq factors 1 / 4, original max positions 8192), max_position_embeddings 131072, no attention / MLP
    # bias, untied LM head, bos 128000, eos 128001 (here remapped), pad 128002 (remapped).
    vision_config = Idefics3VisionConfig(
        hidden_size=64,  # published 1152
        intermediate_size=256,  # published 4304
        num_hidden_layers=2,  # published 27
        num_attention_heads=4,  # published 16
        image_size=image_size,  # published 364
        patch_size=patch_size,
        hidden_act="gelu_pytorch_tanh",
        layer_norm_eps=1e-6,
    )
    text_config = LlamaConfig(
        vocab_size=vocab_size,  # published 128259
        hidden_size=128,  # published 4096
        intermediate_size=448,  # published 14336
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=1,  # published 8
        hidden_act="silu",
        rms_norm_eps=1e-5,
        rope_parameters={
            "rope_type": "llama3",
            "rope_theta": 500000.0,
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        max_position_embeddings=131072,
        attention_bias=False,
        mlp_bias=False,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,  # published 128002
        bos_token_id=bos_token_id,  # published 128000
        eos_token_id=eos_token_id,  # published 128001
    )
    return [Idefics3Config(
        vision_config=vision_config,
        text_config=text_config,
        scale_factor=scale_factor,
        image_token_id=image_token_id,  # published 128257
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,  # published 128002
    )]
