"""diffusers `AutoencoderRAE`: a Representation Autoencoder (Zheng, Ma, Tong & Xie, 2025, "Diffusion Transformers with
Representation Autoencoders"; `nyu-visionx/RAE-dinov2-wReg-base-ViTXL-n08`), run as encode -> decode. Instead of a
convolutional VAE, the latent is the patch-token map of a frozen self-supervised ViT and the decoder is a trained ViT.
Encode: the image is bicubic-resized to the encoder's input size and ImageNet-normalised, then a DINOv2-with-registers
ViT (patch-14 conv embedding, CLS + 4 register tokens, learned position table bicubic-interpolated to the grid,
pre-LayerNorm blocks with layer scale, GELU MLP, a final LayerNorm without affine parameters) gives tokens whose CLS
and registers are dropped; the patch tokens are reshaped to a (C, h, w) latent and normalised by the latent mean / std
buffers. Decode: the latent is flattened back to tokens, a Linear embeds them to the decoder width, a trainable CLS
token is prepended and a fixed 2D sine-cosine position table added, ViT-MAE decoder blocks (pre-LayerNorm attention
with biases, GELU MLP) and a LayerNorm follow, a Linear predicts a 16 x 16 x 3 patch per token (CLS dropped), the
patches are un-patchified with an einsum and de-normalised back to pixel space. The decoder patch (16) is larger than
the encoder's (14), so the output is larger than the encoder input (224 -> 256 in the published model).

Shrunk: encoder DINOv2-B (hidden 768, 12 layers, 12 heads of 64) -> hidden 128, 2 layers, 2 heads of 64; decoder
ViT-XL (hidden 1152, 28 layers, 16 heads) -> hidden 64, 2 layers, 4 heads, MLP 256 (class default 2048); encoder input
224 -> 112 (an 8 x 8 latent of 128 channels instead of 16 x 16 x 768), so 128 x 128 images in and out (published 256).
Kept: encoder_type dinov2 with 4 registers, encoder patch 14, decoder patch 16, ImageNet mean / std, layer_norm_eps
1e-12 in the decoder, scaling_factor 1, latents_mean / std unset (0 / 1 buffers: the checkpoint's latent statistics
are not reproduced), noise_tau 0.8 (training only). The register tokens and the decoder's CLS token are zeros in the
class (trained in the checkpoint): they get fixed small values here.
Input: RGB images in [0, 1] (2, 3, 128, 128). Output: the reconstruction (2, 3, 128, 128).
"""
import torch
from diffusers import AutoencoderRAE
from torch import nn

batch_size = 2
image_size = 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AutoencoderRAE(**config)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for p in (self.model.encoder.embeddings.register_tokens, self.model.decoder.trainable_cls_token):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)

    def forward(self, sample):
        return self.model(sample, return_dict=False)[0]


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [dict(
        encoder_type="dinov2",
        encoder_hidden_size=128,  # published 768
        encoder_patch_size=14,
        encoder_num_hidden_layers=2,  # published 12
        decoder_hidden_size=64,  # published 1152
        decoder_num_hidden_layers=2,  # published 28
        decoder_num_attention_heads=4,  # published 16
        decoder_intermediate_size=256,  # class default 2048
        patch_size=16,
        encoder_input_size=112,  # published 224
        noise_tau=0.8,
    )]
