"""ViLT (Kim et al. 2021, "ViLT: Vision-and-Language Transformer Without Convolution or Region Supervision"): a
single-stream transformer over the concatenation of BERT-style text embeddings (word + position + token type,
LayerNorm) and ViT-style patch embeddings (a 32 x 32 stride-32 conv on the raw, variable-size, padded image, no CNN
or region features), each plus a modality-type embedding (0 text, 1 image). The patch side follows the pixel_mask:
the mask is downsampled to the patch grid, each image's valid height / width in patches is counted, the learned
position-embedding grid is bilinearly resized (align_corners) to that image's own patch grid and zero-padded to the
batch grid; the valid patches are then gathered (torch.multinomial, in a random order) and each image is filled up to
the batch's largest valid patch count with padding patches drawn with replacement, whose mask is 0; a [CLS] patch
token with its own position embedding is prepended. Pre-norm ViT encoder layers (GELU MLP) run over
text and patches with the joint padding mask, then a final LayerNorm and a tanh pooler on the first (text [CLS])
token. After `dandelin/vilt-b32-mlm`, shrunk.

ViltModel. Hidden 768 -> 128, 12 layers -> 2, 12 heads -> 2 (head size 64 kept), intermediate 3072 -> 512,
vocab 30522 -> 1000 ([PAD] 0, [CLS] 101, [SEP] 102 kept), position-embedding grid 384 / 32 = 12 x 12 -> 128 / 32 =
4 x 4 (image_size 384 -> 128), patch 32 kept, text positions 40 kept (captions 16 tokens long here).
Inputs, as ViltProcessor returns them: input_ids (2, 16) and attention_mask (the second caption right-padded with 5
[PAD]); pixel_values (2, 3, 128, 192) and pixel_mask (2, 128, 192): the first image is 128 x 192 (4 x 6 = 24
patches), the second 128 x 128 (4 x 4 = 16 patches) zero-padded at its right border, so it gets 8 masked padding
patches. Sequence: 16 text + 1 [CLS] patch + 24 patches = 41 tokens.
Output: (last_hidden_state (2, 41, 128), pooler_output (2, 128)).
The patch sampling draws from the global generator even in eval mode; the forward runs it under a forked generator
seeded with a constant (see Model.forward), so every call gives the same patch order. The patch [CLS] token and the
patch position embeddings are zeros in transformers' initialization; they are drawn from trunc_normal(0.02) as in
the original ViLT / timm ViT initialization (see Model.__init__), so that the resized position grid is not all zeros.
"""
import torch
from torch import nn
from transformers import ViltConfig, ViltModel

batch_size = 2
seq_len = 16
vocab_size = 1000
pad_id, cls_id, sep_id = 0, 101, 102
height, width = 128, 192
padded_width = 64  # the second image is 128 x 128
patch_sampling_seed = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ViltModel(config)
        embeddings = self.model.embeddings
        nn.init.trunc_normal_(embeddings.cls_token, std=0.02)
        nn.init.trunc_normal_(embeddings.position_embeddings, std=0.02)

    def forward(self, input_ids, attention_mask, pixel_values, pixel_mask):
        # ViltEmbeddings.visual_embed orders the valid patches and picks the padding patches with torch.multinomial;
        # fix that draw without touching the caller's generator state.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(patch_sampling_seed)
            out = self.model(
                input_ids=input_ids, attention_mask=attention_mask, pixel_values=pixel_values, pixel_mask=pixel_mask
            )
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    input_ids = torch.randint(sep_id + 1, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = cls_id
    input_ids[0, -1] = sep_id
    input_ids[1, -6] = sep_id
    input_ids[1, -5:] = pad_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    pixel_values = torch.randn(batch_size, 3, height, width)
    pixel_mask = torch.ones(batch_size, height, width, dtype=torch.long)
    pixel_values[1, :, :, -padded_width:] = 0.0
    pixel_mask[1, :, -padded_width:] = 0
    return [input_ids, attention_mask, pixel_values, pixel_mask]


def get_init_inputs():
    # dandelin/vilt-b32-mlm config.json. Kept: patch 32, 40 text positions, type_vocab_size 2,
    # modality_type_vocab_size 2, max_image_length -1 (fill to the batch's largest image), gelu, qkv_bias,
    # layer_norm_eps 1e-12, dropouts 0, initializer_range 0.02.
    return [ViltConfig(
        vocab_size=vocab_size,  # published 30522
        type_vocab_size=2,
        modality_type_vocab_size=2,
        max_position_embeddings=40,
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=2,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        initializer_range=0.02,
        layer_norm_eps=1e-12,
        image_size=128,  # published 384
        patch_size=32,
        num_channels=3,
        qkv_bias=True,
        max_image_length=-1,
    )]
