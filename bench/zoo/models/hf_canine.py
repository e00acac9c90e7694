"""CANINE (Clark et al. 2021, "CANINE: Pre-training an Efficient Tokenization-Free Encoder for Language
Representation"): a tokenizer-free encoder over Unicode code points. Each code point is embedded by multi-hash
embedding: num_hash_functions hashes ((code point + 1) * prime mod num_hash_buckets), each looking up its own
hidden/num_hash_functions-wide table, concatenated; plus learned positions and token types. A 1-layer LOCAL
transformer (block-wise attention: each chunk of local_transformer_stride characters attends only within its
own chunk) encodes the characters; a strided Conv1d (kernel = stride = downsampling_rate) downsamples characters
to "molecules", with the [CLS] character's encoding prepended; a deep full-attention transformer runs over the
molecules (attention mask max-pooled to molecule resolution); then upsampling: the molecules are repeated
downsampling_rate times back to character length, concatenated with the initial character encoding and fused by
a Conv1d (kernel upsampling_kernel_size, 'same' padding) + GELU + LayerNorm, and a final 1-layer full-attention
transformer gives the per-character outputs; a tanh pooler on the first position. After `google/canine-s`,
shrunk.

CanineModel. Shrunk: hidden 768 -> 128 (8 hash functions kept, so 16-wide hash tables), deep encoder layers 12
-> 2 (the initial local and final character encoders are 1 layer each, as published), 12 heads -> 4,
intermediate 3072 -> 512, local_transformer_stride 128 -> 16 (so the 64 characters form 4 local-attention
chunks), max_position_embeddings 16384 -> 512; downsampling_rate 4, upsampling_kernel_size 4, 16384 hash
buckets and 16 token types kept.
Inputs: input_ids (2, 64) as CanineTokenizer writes them: [CLS] (U+E000), Unicode code points, [SEP] (U+E001),
then pad 0; attention_mask with the second sample right-padded.
Output: last_hidden_state (2, 64, 128) (character resolution).
"""
import torch
from torch import nn
from transformers import CanineConfig, CanineModel

batch_size = 2
seq_len = 64
cls_cp, sep_cp = 0xE000, 0xE001


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CanineModel(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def get_inputs():
    # Code points of Latin / Greek / Cyrillic / CJK text, framed by [CLS] ... [SEP].
    input_ids = torch.randint(32, 0x9FFF, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, 0] = cls_cp
    input_ids[0, -1] = sep_cp
    input_ids[1, -6] = sep_cp
    input_ids[1, -5:] = 0  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # google/canine-s config.json. Kept: gelu, layer_norm_eps 1e-12, initializer_range 0.02, type_vocab_size 16,
    # downsampling_rate 4, upsampling_kernel_size 4, num_hash_functions 8, num_hash_buckets 16384, pad 0,
    # bos 0xE000 / eos 0xE001, hidden/attention dropout 0.1 (inactive in eval).
    return [CanineConfig(
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12 (deep molecule encoder)
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=512,  # published 16384
        type_vocab_size=16,
        initializer_range=0.02,
        layer_norm_eps=1e-12,
        pad_token_id=0,
        bos_token_id=0xE000,
        eos_token_id=0xE001,
        downsampling_rate=4,
        upsampling_kernel_size=4,
        num_hash_functions=8,
        num_hash_buckets=16384,
        local_transformer_stride=16,  # published 128
    )]
