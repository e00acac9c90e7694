"""DeepSeek-VL hybrid vision-language model (Lu et al. 2024, "DeepSeek-VL: Towards Real-World Vision-Language
Understanding", `deepseek-community/deepseek-vl-7b-chat`, DeepseekVLHybridForConditionalGeneration), shrunk: every
image is seen by TWO vision encoders at two resolutions whose features are fused token by token before they replace
the image placeholders of a LLaMA decoder.
  - Low-resolution branch: a SigLIP ViT (patch embedding, learned absolute positions, pre-LN blocks, post-LN, no
    pooling head) on the low-res view; one token per patch.
  - High-resolution branch: a SAM ViT-B image encoder (ViTDet style: 16 x 16 patches, absolute positions, windowed
    attention with decomposed relative-position biases, global attention on selected layers, then the SAM neck of
    1 x 1 conv + LayerNorm2d + 3 x 3 conv + LayerNorm2d). Two paths leave it: the final neck output, and the hidden
    state after the FIRST global-attention layer, passed through a second (model-owned) neck. Each path is resized
    bilinearly to 4x the low-res grid and brought down by two stride-2 3 x 3 convs (channels x2, x4); the two are
    summed with a learned alpha (zero-initialised) on the intermediate path.
  - Aligner: Linear(SigLIP) and Linear(SAM) to half the LM width each, concatenated [SAM ; SigLIP], GELU, Linear.
  - LM: LLaMA decoder (RoPE, RMSNorm, SwiGLU), image token embeddings replaced by the fused features (masked_scatter),
    causal attention under the padding mask, LM head tied to the embeddings.

Shrunk (from deepseek-vl-7b-chat): SigLIP width 1024 -> 64, 24 layers -> 2, 16 heads -> 2, MLP 4096 -> 128, image
384 -> 64 (grid 24 -> 4, so 576 -> 16 image tokens); SAM width 768 -> 64, 12 layers -> 4, 12 heads -> 2, image
1024 -> 128 (grid 64 -> 8), window 14 -> 4, global layers (2, 5, 8, 11) -> (1, 3), neck channels 256 -> 32, position
features 128 -> 16; LM hidden 4096 -> 64, 30 layers -> 2, 32 heads -> 4, intermediate 11008 -> 128, vocab 102400 ->
1000 (image token 100015 -> 999, pad -> 0). Kept: patch 16 in both towers, SAM relative positions, tied embeddings.
Inputs: input_ids (2, 40) with 16 image tokens each, attention_mask (the second sample right-padded by 5),
pixel_values (2, 3, 64, 64) low-res views, high_res_pixel_values (2, 3, 128, 128). Output: LM logits (2, 40, 1000).
"""
import torch
from torch import nn
from transformers import DeepseekVLHybridConfig, DeepseekVLHybridForConditionalGeneration

batch_size = 2
seq_len = 40
vocab_size = 1000
image_token_id = 999  # published 100015
image_size = 64
high_res_image_size = 128
image_tokens = 16  # (64 / 16) ** 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DeepseekVLHybridForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, pixel_values, high_res_pixel_values):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, pixel_values=pixel_values,
                          high_res_pixel_values=high_res_pixel_values).logits


def get_inputs():
    input_ids = torch.randint(1, image_token_id, (batch_size, seq_len))
    input_ids[:, 3:3 + image_tokens] = image_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = 0  # pad
    attention_mask[1, -5:] = 0
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    high_res_pixel_values = torch.randn(batch_size, 3, high_res_image_size, high_res_image_size)
    return [input_ids, attention_mask, pixel_values, high_res_pixel_values]


def get_init_inputs():
    # deepseek-community/deepseek-vl-7b-chat config.json, shrunk where commented.
    vision_config = dict(
        model_type="siglip_vision_model",
        hidden_size=64,  # published 1024
        intermediate_size=128,  # published 4096
        num_hidden_layers=2,  # published 24
        num_attention_heads=2,  # published 16
        image_size=image_size,  # published 384
        patch_size=16,
        vision_use_head=False,
    )
    high_res_vision_config = dict(
        model_type="sam_vision_model",
        hidden_size=64,  # published 768
        output_channels=32,  # published 256
        num_hidden_layers=4,  # published 12
        num_attention_heads=2,  # published 12
        image_size=high_res_image_size,  # published 1024
        patch_size=16,
        window_size=4,  # published 14
        global_attn_indexes=[1, 3],  # published [2, 5, 8, 11]
        num_pos_feats=16,  # published 128
    )
    text_config = dict(
        model_type="llama",
        vocab_size=vocab_size,  # published 102400
        hidden_size=64,  # published 4096
        intermediate_size=128,  # published 11008
        num_hidden_layers=2,  # published 30
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        pad_token_id=0,
    )
    return [DeepseekVLHybridConfig(
        vision_config=vision_config,
        high_res_vision_config=high_res_vision_config,
        text_config=text_config,
        image_token_id=image_token_id,
    )]
