"""ModernBERT encoder (token embedding + LayerNorm without bias, no position embeddings; pre-LN layers whose
attention uses a fused Wqkv, RoPE with theta 160000 in global layers and 10000 in local layers, every third
layer global and the others local with a bidirectional sliding window; GeGLU MLP (Wi to 2x intermediate, gelu
gate); no biases anywhere; the first layer has no attention norm; final LayerNorm), after
`answerdotai/ModernBERT-base`, shrunk.

ModernBertModel with SDPA. In transformers 4.x ModernBERT unpadded the batch (concatenating the real tokens and
running flash-attention varlen); this version (5.24) keeps the padded (batch, seq) layout on every backend,
masks the padding in attention, and only the flash-attention backends unpad internally. So on CPU the padded
sample runs through a padded mask, combined with the sliding window in local layers.
The local window is shrunk from 128 (64 each side) to 16 (8 each side) on a 64-token input, so it bites.
Shrunk: hidden 768 -> 128, 22 layers -> 3 (global, local, local: the published pattern's first period),
12 heads -> 4, head_dim 64 -> 32, intermediate 1152 -> 192 (1.5x hidden kept), local_attention 128 -> 16,
vocab 50368 -> 1000 ([CLS] 50281 -> 997, [SEP] 50282 -> 998, [PAD] 50283 -> 999).
Inputs: input_ids (2, 64) as [CLS] text [SEP], with the second sample 4 tokens shorter and right-padded
(the tokenizer pads right); attention_mask. Output: last_hidden_state (2, 64, 128).
"""
import torch
from torch import nn
from transformers import ModernBertConfig, ModernBertModel

batch_size = 2
seq_len = 64
vocab_size = 1000
cls_token_id = 997  # [CLS]
sep_token_id = 998  # [SEP]
pad_token_id = 999  # [PAD]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ModernBertModel(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def get_inputs():
    input_ids = torch.randint(0, 990, (batch_size, seq_len))
    input_ids[:, 0] = cls_token_id
    input_ids[0, -1] = sep_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5] = sep_token_id
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # answerdotai/ModernBERT-base config.json. Kept: gelu (GeGLU), norm_eps 1e-5, no norm / attention / mlp
    # bias, global_attn_every_n_layers 3, global_rope_theta 160000, local_rope_theta 10000,
    # max_position_embeddings 8192, initializer_range 0.02, initializer_cutoff_factor 2.0, dropouts 0,
    # decoder_bias (MLM head, unused here), classifier_pooling "mean" (unused here).
    return [ModernBertConfig(
        vocab_size=vocab_size,  # published 50368
        hidden_size=128,  # published 768
        intermediate_size=192,  # published 1152
        num_hidden_layers=3,  # published 22
        num_attention_heads=4,  # published 12
        hidden_activation="gelu",
        max_position_embeddings=8192,
        initializer_range=0.02,
        initializer_cutoff_factor=2.0,
        norm_eps=1e-5,
        norm_bias=False,
        attention_bias=False,
        mlp_bias=False,
        attention_dropout=0.0,
        embedding_dropout=0.0,
        mlp_dropout=0.0,
        global_attn_every_n_layers=3,  # -> layer types [full, sliding, sliding]
        local_attention=16,  # published 128
        rope_parameters={
            "full_attention": {"rope_type": "default", "rope_theta": 160000.0},  # published global_rope_theta
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},  # published local_rope_theta
        },
        decoder_bias=True,
        classifier_pooling="mean",
        pad_token_id=pad_token_id,  # published 50283
        bos_token_id=cls_token_id,  # published 50281
        cls_token_id=cls_token_id,  # published 50281
        eos_token_id=sep_token_id,  # published 50282
        sep_token_id=sep_token_id,  # published 50282
    )]
