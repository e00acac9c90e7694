"""Funnel Transformer (encoder of 3 blocks; between blocks the query sequence is mean-pooled with stride 2 while
keys/values keep the unpooled length (pool_q_only), the [CLS] token kept apart from pooling (separate_cls) and the
last token dropped (truncate_seq); relative-shift positional attention with content / position / segment biases,
the [CLS] token treated as its own segment (token type 2); no absolute position embeddings; a 2-layer decoder that
upsamples the last block's output back to full length and adds the first block's output), after
`funnel-transformer/small`, shrunk.

FunnelModel (encoder + decoder, full-length token outputs).
Shrunk: block_sizes (4, 4, 4) -> (1, 1, 1) (3 blocks kept, so the sequence is pooled twice: 32 -> 16 -> 8),
d_model 768 -> 128, 12 heads -> 4, d_head 64 -> 32, d_inner 3072 -> 512, vocab 30522 -> 1000; 2 decoder layers
kept.
Inputs: input_ids (2, 32), attention_mask with the second sample right-padded (pad id 0), token_type_ids as the
Funnel tokenizer returns them (2 for <cls>, 0 for the first segment, 1 for the second).
Output: last_hidden_state (2, 32, 128).
"""
import torch
from torch import nn
from transformers import FunnelConfig, FunnelModel

batch_size = 2
seq_len = 32
vocab_size = 1000
cls_id, sep_id = 101, 102


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = FunnelModel(config)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state


def get_inputs():
    # A sentence pair per sample: <cls> A <sep> B <sep> [<pad> ...]
    input_ids = torch.randint(110, vocab_size, (batch_size, seq_len))
    token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, 0] = cls_id
    token_type_ids[:, 0] = 2  # <cls> gets its own token type
    input_ids[0, 15] = sep_id
    token_type_ids[0, 16:] = 1
    input_ids[0, -1] = sep_id
    input_ids[1, 12] = sep_id
    token_type_ids[1, 13:-5] = 1
    input_ids[1, -6] = sep_id
    input_ids[1, -5:] = 0  # <pad>
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask, token_type_ids]


def get_init_inputs():
    # funnel-transformer/small config.json. Kept: pooling_type "mean", attention_type "relative_shift",
    # separate_cls, truncate_seq, pool_q_only, num_decoder_layers 2, gelu_new, layer_norm_eps 1e-9,
    # initializer_range 0.1, hidden/attention dropout 0.1 and activation dropout 0 (inactive in eval).
    return [FunnelConfig(
        vocab_size=vocab_size,  # published 30522
        block_sizes=[1, 1, 1],  # published [4, 4, 4]
        block_repeats=None,
        num_decoder_layers=2,
        d_model=128,  # published 768
        n_head=4,  # published 12
        d_head=32,  # published 64
        d_inner=512,  # published 3072
        hidden_act="gelu_new",
        hidden_dropout=0.1,
        attention_dropout=0.1,
        activation_dropout=0.0,
        initializer_range=0.1,
        initializer_std=None,
        layer_norm_eps=1e-9,
        pooling_type="mean",
        attention_type="relative_shift",
        separate_cls=True,
        truncate_seq=True,
        pool_q_only=True,
    )]
