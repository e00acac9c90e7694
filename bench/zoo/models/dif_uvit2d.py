"""diffusers `UVit2DModel`: the aMUSEd masked-image-token transformer (a MUSE-style U-ViT over VQ-GAN token ids).
The token ids are embedded, RMS-normalized and lifted by a 1 x 1 conv to a feature map; a convolutional down block
(an RMS-normed stride-2 2 x 2 conv downsample, then ConvNeXt blocks: depthwise 3 x 3 conv, RMSNorm, GELU MLP with
GlobalResponseNorm, then a scale / shift from the conditioning embedding; each followed by a SkipFF transformer
block with self-attention and cross-attention to the text states) precedes the flattened-token transformer (RMS-
normed projection to the hidden width; BasicTransformerBlocks with self-attention, cross-attention to the projected
CLIP hidden states and a GEGLU MLP, every norm an AdaLayerNormContinuous modulated by the conditioning embedding);
a mirrored up block (ConvNeXt + SkipFF blocks, then an RMS-normed 2 x 2 transposed-conv upsample) and a
convolutional MLM head give logits over the VQ codebook for every token. The conditioning embedding is an MLP over
the pooled CLIP text embedding concatenated with sinusoidal encodings of the 5 micro-conditions (original width,
height, crop top, crop left, aesthetic score). No biases anywhere (use_bias False).

Architecture after amused/amused-256 `transformer/config.json`, shrunk: hidden_size 1024 -> 128, 16 heads -> 4
(head dim 64 -> 32), 22 transformer layers -> 2, intermediate_size 2816 -> 352, block_out_channels 768 -> 64,
in_channels (token embedding width) 768 -> 64, block_num_heads 12 -> 2 (head dim 64 -> 32), num_res_blocks 3 -> 2,
encoder_hidden_size (CLIP hidden) 768 -> 64, cond_embed_dim (CLIP projection) 768 -> 64, micro_cond_encode_dim
256 -> 32, micro_cond_embed_dim 1280 -> 160 (5 x 32), codebook_size 8192 -> 1024, vocab_size 8256 -> 1088
(codebook + mask token, rounded up to a multiple of 64; the mask token is the last id). downsample / upsample are
switched ON here (amused-256 publishes them off, amused-512 on) so the down / up blocks change the resolution:
the 16 x 16 token grid runs the transformer at 8 x 8. Kept: layer_norm_eps 1e-6, ln_elementwise_affine, no
dropout, sample_size 16 (256 px / 16).
Inputs as AmusedPipeline passes them mid-sampling for 256 x 256 images: token ids (2, 16, 16) with about half
still the mask token, CLIP penultimate hidden states (2, 32, 64) (77 tokens -> 32), pooled CLIP text embeddings
(2, 64), micro_conds (2, 5) = [256, 256, 0, 0, 6].
Output: logits over the codebook (2, 1024, 16, 16).
"""
import torch
from torch import nn
from diffusers import UVit2DModel

batch_size = 2
image_size = 256
token_hw = 16  # 256 px / 16 (VQ-GAN downsampling)
text_len = 32
codebook_size = 1024
vocab_size = 1088
mask_token_id = vocab_size - 1
encoder_hidden_size = 64
cond_embed_dim = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = UVit2DModel(**config)

    def forward(self, input_ids, encoder_hidden_states, pooled_text_emb, micro_conds):
        return self.model(
            input_ids,
            micro_conds=micro_conds,
            pooled_text_emb=pooled_text_emb,
            encoder_hidden_states=encoder_hidden_states,
        )


def get_inputs():
    input_ids = torch.randint(0, codebook_size, (batch_size, token_hw, token_hw))
    input_ids[torch.rand(batch_size, token_hw, token_hw) < 0.5] = mask_token_id  # still-masked tokens
    encoder_hidden_states = torch.randn(batch_size, text_len, encoder_hidden_size)
    pooled_text_emb = torch.randn(batch_size, cond_embed_dim)
    # AmusedPipeline: [width, height, crop top, crop left, aesthetic score]
    micro_conds = torch.tensor([[image_size, image_size, 0, 0, 6]], dtype=torch.float32).expand(batch_size, -1)
    return [input_ids, encoder_hidden_states, pooled_text_emb, micro_conds]


def get_init_inputs():
    return [dict(
        hidden_size=128,  # published 1024
        use_bias=False,
        hidden_dropout=0.0,
        cond_embed_dim=cond_embed_dim,  # published 768
        micro_cond_encode_dim=32,  # published 256
        micro_cond_embed_dim=160,  # published 1280 (5 micro-conditions x encode dim)
        encoder_hidden_size=encoder_hidden_size,  # published 768
        vocab_size=vocab_size,  # published 8256
        codebook_size=codebook_size,  # published 8192
        in_channels=64,  # published 768
        block_out_channels=64,  # published 768
        num_res_blocks=2,  # published 3
        downsample=True,  # published False in amused-256 (True in amused-512)
        upsample=True,  # published False in amused-256 (True in amused-512)
        block_num_heads=2,  # published 12
        num_hidden_layers=2,  # published 22
        num_attention_heads=4,  # published 16
        attention_dropout=0.0,
        intermediate_size=352,  # published 2816
        layer_norm_eps=1e-6,
        ln_elementwise_affine=True,
        sample_size=token_hw,
    )]
