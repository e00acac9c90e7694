"""Florence-2 vision-language encoder-decoder (`florence-community/Florence-2-base`,
Florence2ForConditionalGeneration), shrunk: a DaViT image encoder whose visual tokens replace the `<image>`
placeholders at the front of a BART encoder's input, and a BART decoder that writes the task output (captions, boxes
as location tokens, OCR) with cross-attention to that mixed sequence. DaViT (dual attention ViT): four stages, each
opened by a conv patch embedding (7 x 7 stride 4, then 3 x 3 stride 2 with LayerNorm before the conv) and made of
blocks that alternate a spatial block and a channel block. Both start every residual step with a 3 x 3 depthwise conv
positional residual; the spatial block runs window self-attention (12 x 12 windows, zero-padded to a multiple of the
window), the channel block runs channel-group attention: the channels split into groups, each group attends over its
channels with the tokens as the feature axis (scale num_tokens^-1/2); each block then a LayerNorm GELU MLP. The last
stage map gets a learned 2D absolute position embedding (row / column tables concatenated), is flattened, gets a fixed
1D sine-cosine temporal embedding (frame 0), and is pooled into the spatial tokens plus one temporal-mean token (H W +
1 tokens), then Linear-projected to the text width and LayerNorm'ed. The BART part: learned positions (offset 2),
post-LayerNorm encoder / decoder layers with GELU FFNs, the decoder causal with cross-attention, an LM head tied to
the shared embedding plus a final_logits_bias.

Shrunk: DaViT embed dims (128, 256, 512, 1024) -> (16, 32, 64, 128), depths (1, 1, 9, 1) -> (1, 1, 2, 1), heads and
channel groups (4, 8, 16, 32) -> (1, 2, 4, 8), window 12 -> 6 at a 192 x 192 image (published 768 x 768, window 12:
stage maps 48, 24, 12, 6 -> 37 visual tokens), projection_dim 768 -> 64; BART d_model 768 -> 64, 6 + 6 layers -> 2 +
2, 12 heads -> 4, FFN 3072 -> 128, vocab 51289 -> 1000 (image token id 51289 -> 999), max positions 1024 -> 128.
Kept: DaViT patch sizes / strides / paddings / pre-norms, mlp_ratio 4, qkv bias, GELU, max 50 2D positions and 100
temporal positions, BART's GELU, learned positions, tied embeddings, decoder_start 2 / bos 0 / pad 1 / eos 2.
Inputs: input_ids (2, 47) = 37 `<image>` tokens, <s>, 8 prompt tokens, </s> (the second sample's prompt two tokens
shorter, right-padded, with its attention_mask), pixel_values (2, 3, 192, 192), decoder_input_ids (2, 12) starting
with </s>.
Output: LM logits (2, 12, 1000).
"""
import torch
from torch import nn
from transformers import BartConfig, Florence2Config, Florence2ForConditionalGeneration, Florence2VisionConfig

batch_size = 2
image_size = 192
num_image_tokens = (image_size // 32) ** 2 + 1  # 37
prompt_len = 8
seq_len = num_image_tokens + prompt_len + 2  # 47
decoder_seq_len = 12
vocab_size = 1000
image_token_id = 999
bos_token_id, pad_token_id, eos_token_id = 0, 1, 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Florence2ForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, decoder_input_ids):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            pixel_values=pixel_values,
            decoder_input_ids=decoder_input_ids,
        ).logits


def get_inputs():
    input_ids = torch.randint(4, image_token_id, (batch_size, seq_len))
    input_ids[:, :num_image_tokens] = image_token_id
    input_ids[:, num_image_tokens] = bos_token_id
    input_ids[:, -1] = eos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -3] = eos_token_id  # a prompt two tokens shorter: </s>, then padding
    input_ids[1, -2:] = pad_token_id
    attention_mask[1, -2:] = 0
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    pixel_values = (torch.rand(batch_size, 3, image_size, image_size) - mean) / std
    decoder_input_ids = torch.randint(4, image_token_id, (batch_size, decoder_seq_len))
    decoder_input_ids[:, 0] = eos_token_id  # decoder_start_token_id
    return [input_ids, attention_mask, pixel_values, decoder_input_ids]


def get_init_inputs():
    # florence-community/Florence-2-base: Florence2VisionConfig defaults (DaViT) and a BART-base text config.
    vision_config = Florence2VisionConfig(
        depths=(1, 1, 2, 1),  # published (1, 1, 9, 1)
        embed_dim=(16, 32, 64, 128),  # published (128, 256, 512, 1024)
        num_heads=(1, 2, 4, 8),  # published (4, 8, 16, 32)
        num_groups=(1, 2, 4, 8),  # published (4, 8, 16, 32)
        window_size=6,  # published 12 (at 768 x 768)
        projection_dim=64,  # published 768
    )
    text_config = BartConfig(
        vocab_size=vocab_size,  # published 51289
        d_model=64,  # published 768
        encoder_layers=2,  # published 6
        decoder_layers=2,  # published 6
        encoder_attention_heads=4,  # published 12
        decoder_attention_heads=4,  # published 12
        encoder_ffn_dim=128,  # published 3072
        decoder_ffn_dim=128,  # published 3072
        max_position_embeddings=128,  # published 1024
    )
    return [Florence2Config(vision_config=vision_config, text_config=text_config, image_token_id=image_token_id)]
