"""NLLB-MoE encoder-decoder translation model (M2M-style pre-norm transformer in which every 4th FFN is a
top-2-routed sparse mixture of experts with expert capacity and token dropping; sinusoidal positions),
after `facebook/nllb-moe-54b`, shrunk. NllbMoeForConditionalGeneration; output: logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import NllbMoeConfig, NllbMoeForConditionalGeneration

batch_size = 2
src_len = 16
tgt_len = 16
vocab_size = 1000
pad_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = NllbMoeForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids
        ).logits


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, src_len))
    attention_mask = torch.ones(batch_size, src_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    decoder_input_ids = torch.randint(4, vocab_size, (batch_size, tgt_len))
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # Kept: sparse_step 4 (every 4th layer MoE), top-2 router, expert_capacity 64, relu, scale_embedding.
    return [NllbMoeConfig(
        vocab_size=vocab_size,  # published 256206
        d_model=64,  # published 2048
        encoder_layers=4,  # published 24 (4 so that one layer is sparse)
        decoder_layers=4,  # published 24
        encoder_attention_heads=4,  # published 16
        decoder_attention_heads=4,  # published 16
        encoder_ffn_dim=128,  # published 8192
        decoder_ffn_dim=128,  # published 8192
        num_experts=4,  # published 128
        encoder_sparse_step=4,
        decoder_sparse_step=4,
        max_position_embeddings=64,  # published 1024
        pad_token_id=pad_token_id,
    )]
