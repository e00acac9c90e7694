"""Reformer: the published config of `google/reformer-crime-and-punishment` (character-level LM).

6 reversible layers alternating local and LSH self-attention (chunk length 64, 1 hash, 64 x 128 factorised
buckets), axial position embeddings over a 512 x 1024 grid (= 524288 = max_position_embeddings, the length the
whole book was trained at). In eval mode any length up to 524288 is valid for the axial embeddings (only
training needs seq_len == 512 * 1024) and a multiple of the chunk length 64 needs no padding: 1024 tokens
(shortened for the CPU sweep; 16 chunks). hash_seed is None as published: the LSH rotations come from
torch's global RNG (seeded by whoever runs the model). Output: LM logits (batch, 1024, 320).
"""
import torch
from torch import nn
from transformers import ReformerConfig, ReformerModelWithLMHead

batch_size = 1
seq_len = 1024  # a multiple of the chunk length 64, <= 512 * 1024 (axial_pos_shape product); shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ReformerModelWithLMHead(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 320, (batch_size, seq_len))]


def get_init_inputs():
    # google/reformer-crime-and-punishment config.json (fields that differ from ReformerConfig's defaults).
    # Same as the defaults: vocab 320, hidden 256, attention_head_size 64, feed_forward_size 512, relu,
    # attn_layers [local, lsh] * 3, chunk lengths 64, chunks before 1 / after 0, num_hashes 1,
    # axial_pos_embds_dim [64, 192], layer_norm_eps 1e-12, hidden dropout 0.05, untied LM head.
    return [ReformerConfig(
        num_attention_heads=2,
        num_buckets=[64, 128],
        axial_pos_shape=[512, 1024],
        max_position_embeddings=524288,
        is_decoder=True,
    )]
