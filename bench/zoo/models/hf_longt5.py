"""LongT5 with Transient-Global attention: T5 encoder-decoder whose encoder attends within local blocks
(radius r) plus to per-block "global" summary tokens (mean of each 16-token block, with their own relative
position bias), after `google/long-t5-tglobal-base`, shrunk.

Shrunk: d_model 768 -> 128, d_kv 64 -> 32, 12 heads -> 4, d_ff 2048 -> 256, 12 + 12 layers -> 2 + 2,
vocab 32128 -> 1000, local_radius 127 -> 7 (local blocks of 8, so a 64-token input has 8 blocks).
Inputs: input_ids (2, 64), an attention_mask whose second sample is right-padded (5 positions),
decoder_input_ids (2, 16).
Output: the decoder's last_hidden_state (2, 16, 128).
"""
import torch
from torch import nn
from transformers import LongT5Config, LongT5Model

batch_size = 2
seq_len = 64
decoder_seq_len = 16
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LongT5Model(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            decoder_input_ids=decoder_input_ids,
        ).last_hidden_state


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    decoder_input_ids = torch.randint(0, vocab_size, (batch_size, decoder_seq_len))
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # google/long-t5-tglobal-base config.json. Kept: encoder_attention_type "transient-global",
    # global_block_size 16, gated-gelu FFN, relative_attention_num_buckets 32 / max_distance 128,
    # layer_norm_epsilon 1e-6, untied embeddings.
    return [LongT5Config(
        vocab_size=vocab_size,  # published 32128
        d_model=128,  # published 768
        d_kv=32,  # published 64
        d_ff=256,  # published 2048
        num_layers=2,  # published 12
        num_decoder_layers=2,  # published 12
        num_heads=4,  # published 12
        local_radius=7,  # published 127
        global_block_size=16,  # published 16
        encoder_attention_type="transient-global",  # published "transient-global"
        feed_forward_proj="gated-gelu",  # published "gated-gelu"
        decoder_start_token_id=0,  # published 0
        tie_word_embeddings=False,  # published false
    )]
