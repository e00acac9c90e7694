"""ERNIE 4.5 VL MoE (`baidu/ERNIE-4.5-VL-28B-A3B-PT`), shrunk: a vision-language model whose decoder has
modality-isolated Mixture-of-Experts layers. The vision tower is a native-resolution ViT over flattened 14 x 14
patches (a bias-free Linear patch embedding, 2D axial RoPE from each patch's (h, w) grid coordinates, block-diagonal
attention per image from cu_seqlens, quick-GELU MLPs, a final LayerNorm). The variable-resolution resampler merges
every 2 x 2 patch group into one token by a reshape (Linear-GELU-Linear-LayerNorm on the concatenation), then
applies the temporal merge: an image is duplicated along time (index_select of the same rows twice, concatenated)
and passed through the temporal MLP, then a Linear to the LM width and an RMSNorm. Image embeddings replace the
image placeholder tokens (masked_scatter). The decoder uses 3D M-RoPE: text tokens advance one position on all
three axes, image tokens get (t, h, w) grid positions starting at the running offset, computed per sample in
Python (itertools.groupby over the token types, skipping padding); the rotary frequencies are pre-permuted so h
and w interleave ([h, w, h, w, ..., t]) and rotate interleaved pairs. Attention is GQA with RMSNorm pre-norm; the
first layer has a dense SwiGLU MLP and the others a MoE block that splits the batch's tokens by modality (boolean
masks: text tokens vs image tokens, the image start / end tokens counted as vision) into two separate routed MoEs,
text experts and smaller vision experts, each with a softmax router (fp32), top-k picked on the probabilities plus
a correction bias, the picked probabilities renormalised; outputs and router logits are written back by boolean
mask assignment; shared SwiGLU experts run on every token. Final RMSNorm and tied LM head.

Ernie4_5_VLMoeForConditionalGeneration, sdpa attention, no cache.
Shrunk: vision depth 32 -> 2, hidden 1280 -> 64, 16 heads -> 4, intermediate 5120 -> 128; text hidden 2560 -> 64,
28 layers -> 3 (dense, sparse, sparse; published dense first then sparse), 20 heads (4 kv) -> 4 (2) with head_dim
128 -> 16 (mrope_section [22, 22, 20] -> [3, 3, 2]), intermediate 12288 -> 192, 64 experts per modality -> 8, top-6
-> top-2, moe_intermediate [1536, 512] -> [64, 32], 2 shared experts -> 1 (width 64), vocab 103424 -> 1000 (special
ids moved to 990-995), image 8 x 8 patches (112 px) -> 16 tokens per image.
Kept: patch 14, spatial merge 2, temporal merge 2, quick-GELU vision MLP, rope theta 5e5 (text) / 1e4 axial
(vision), rms_norm_eps 1e-5, moe_norm_min 1e-12, tied embeddings. The routers' e_score_correction_bias (zeros in the
class, trained in the checkpoint) gets fixed values in [-0.05, 0.05].
Inputs: input_ids (2, 40): per sample text, <img_start>, 16 image tokens, <img_end>, text, the second sample
left-padded by 4; attention_mask (2, 40); mm_token_type_ids and moe_mm_token_type_ids (2, 40); pixel_values
(128, 588) (the 2 images' 64 flattened patches each); image_grid_thw (2, 3) = [1, 8, 8].
Output: LM logits (2, 40, 1000).
"""
import torch
from torch import nn
from transformers import Ernie4_5_VLMoeConfig, Ernie4_5_VLMoeForConditionalGeneration

batch_size = 2
seq_len = 40
vocab_size = 1000
image_token_id, image_start_id, image_end_id = 990, 991, 992
video_token_id, video_start_id, video_end_id = 993, 994, 995
pad_token_id = 0
grid = 8  # patches per side
image_tokens = (grid // 2) ** 2  # 16 after the 2 x 2 merge
left_pad = 4


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        config._attn_implementation = "sdpa"
        self.model = Ernie4_5_VLMoeForConditionalGeneration(config)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for name, p in self.model.named_parameters():
                if name.endswith("e_score_correction_bias"):
                    p.copy_((torch.rand(p.shape, generator=gen) - 0.5) * 0.1)

    def forward(self, input_ids, attention_mask, mm_token_type_ids, moe_mm_token_type_ids, pixel_values,
                image_grid_thw):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            mm_token_type_ids=mm_token_type_ids,
            moe_mm_token_type_ids=moe_mm_token_type_ids,
            pixel_values=pixel_values,
            image_grid_thw=image_grid_thw,
            use_cache=False,
        ).logits


def get_inputs():
    input_ids = torch.randint(1, 980, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    mm_token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    moe_mm_token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for b, start in enumerate([6, 6 + left_pad]):  # <img_start> position
        input_ids[b, start] = image_start_id
        input_ids[b, start + 1:start + 1 + image_tokens] = image_token_id
        input_ids[b, start + 1 + image_tokens] = image_end_id
        mm_token_type_ids[b, start + 1:start + 1 + image_tokens] = 1
        moe_mm_token_type_ids[b, start:start + 2 + image_tokens] = 1
    input_ids[1, :left_pad] = pad_token_id
    attention_mask[1, :left_pad] = 0
    pixel_values = torch.randn(batch_size * grid * grid, 3 * 14 * 14)
    image_grid_thw = torch.tensor([[1, grid, grid]] * batch_size)
    return [input_ids, attention_mask, mm_token_type_ids, moe_mm_token_type_ids, pixel_values, image_grid_thw]


def get_init_inputs():
    return [Ernie4_5_VLMoeConfig(
        vision_config={
            "depth": 2,  # published 32
            "hidden_size": 64,  # published 1280
            "num_heads": 4,  # published 16
            "intermediate_size": 128,  # published 5120
            "patch_size": 14,
            "spatial_merge_size": 2,
            "temporal_merge_size": 2,
        },
        text_config={
            "vocab_size": vocab_size,  # published 103424
            "hidden_size": 64,  # published 2560
            "intermediate_size": 192,  # published 12288
            "num_hidden_layers": 3,  # published 28
            "mlp_layer_types": ["dense", "sparse", "sparse"],
            "num_attention_heads": 4,  # published 20
            "num_key_value_heads": 2,  # published 4
            "head_dim": 16,  # published 128
            "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0, "mrope_section": [3, 3, 2]},
            "moe_num_experts": 8,  # published 64
            "moe_k": 2,  # published 6
            "moe_intermediate_size": [64, 32],  # published [1536, 512]
            "moe_num_shared_experts": 1,  # published 2
            "pad_token_id": pad_token_id,
        },
        image_token_id=image_token_id,
        image_start_token_id=image_start_id,
        image_end_token_id=image_end_id,
        video_token_id=video_token_id,
        video_start_token_id=video_start_id,
        video_end_token_id=video_end_id,
    )]
