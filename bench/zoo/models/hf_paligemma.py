"""PaliGemma (SigLIP vision tower -> linear projector -> Gemma decoder; the projected patch features replace the
image tokens at the start of the prompt; prefix-LM attention: image + prompt attend bidirectionally, the suffix
causally), after `google/paligemma-3b-pt-224`, shrunk.

Vision: 224x224 / patch 14 -> 112x112 / patch 14 (8 x 8 = 64 patches, no CLS, so the prompt holds the image token
64 times), hidden 1152 -> 64, 27 layers -> 2, 16 heads -> 4, intermediate 4304 -> 256. Text (Gemma-2B):
hidden 2048 -> 128, 18 layers -> 2, 8 heads -> 4 (1 kv head kept), head_dim 256 -> 32, intermediate
16384 -> 512, vocab 257216 -> 1064 (image token 257152 -> 1000).
Inputs, laid out as PaliGemmaProcessor(images, text, suffix) returns them: input_ids (2, 84) = 64 image tokens,
bos, 10 prompt tokens, "\n" (prefix, token_type_ids 0), then an 8-token suffix ending in eos (token_type_ids 1);
the second sample has a 4-token shorter suffix and is left-padded (Gemma's tokenizer pads left).
pixel_values (2, 3, 112, 112), attention_mask, token_type_ids. Output: LM logits (2, 84, 1064).
"""
import torch
from torch import nn
from transformers import GemmaConfig, PaliGemmaConfig, PaliGemmaForConditionalGeneration, SiglipVisionConfig

batch_size = 2
image_size = 112
patch_size = 14
num_image_tokens = (image_size // patch_size) ** 2  # 64
prompt_len = 10
suffix_len = 8
seq_len = num_image_tokens + 1 + prompt_len + 1 + suffix_len  # 84
image_token_id = 1000
pad_token_id, eos_token_id, bos_token_id, newline_id = 0, 1, 2, 108


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PaliGemmaForConditionalGeneration(config)

    def forward(self, input_ids, pixel_values, attention_mask, token_type_ids):
        return self.model(
            input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).logits


def get_inputs():
    image = torch.full((batch_size, num_image_tokens), image_token_id)
    bos = torch.full((batch_size, 1), bos_token_id)
    prompt = torch.randint(3, 1000, (batch_size, prompt_len))
    newline = torch.full((batch_size, 1), newline_id)
    suffix = torch.randint(3, 1000, (batch_size, suffix_len))
    suffix[:, -1] = eos_token_id
    input_ids = torch.cat([image, bos, prompt, newline, suffix], dim=1)
    token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    token_type_ids[:, -suffix_len:] = 1
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    # second sample: suffix 4 tokens shorter, left-padded
    input_ids[1, 4:] = input_ids[1, :-4].clone()
    input_ids[1, -1] = eos_token_id
    input_ids[1, :4] = pad_token_id
    token_type_ids[1, 4:] = token_type_ids[1, :-4].clone()
    token_type_ids[1, :4] = 0
    attention_mask[1, :4] = 0
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    return [input_ids, pixel_values, attention_mask, token_type_ids]


def get_init_inputs():
    # google/paligemma-3b-pt-224 config.json. Kept: SigLIP patch 14, no vision head, gelu_pytorch_tanh,
    # layer_norm_eps 1e-6; Gemma MQA (1 kv head), gelu_pytorch_tanh, rms_norm_eps 1e-6, rope_theta 1e4,
    # tied embeddings, pad 0 / eos 1 / bos 2; projection_dim = text hidden size.
    vision_config = SiglipVisionConfig(
        hidden_size=64,  # published 1152
        intermediate_size=256,  # published 4304
        num_hidden_layers=2,  # published 27
        num_attention_heads=4,  # published 16
        image_size=image_size,  # published 224
        patch_size=patch_size,
        hidden_act="gelu_pytorch_tanh",
        layer_norm_eps=1e-6,
        vision_use_head=False,
    )
    text_config = GemmaConfig(
        vocab_size=1064,  # published 257216
        hidden_size=128,  # published 2048
        intermediate_size=512,  # published 16384
        num_hidden_layers=2,  # published 18
        num_attention_heads=4,  # published 8
        num_key_value_heads=1,
        head_dim=32,  # published 256
        hidden_act="gelu_pytorch_tanh",
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        max_position_embeddings=8192,
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
        bos_token_id=bos_token_id,
    )
    return [PaliGemmaConfig(
        vision_config=vision_config,
        text_config=text_config,
        image_token_index=image_token_id,  # published 257152
        projection_dim=128,  # published 2048
        hidden_size=128,  # published 2048
    )]
