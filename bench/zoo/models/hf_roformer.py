"""RoFormer encoder (BERT-style post-LN encoder whose word + token-type embeddings carry no absolute positions;
instead every self-attention layer rotates q and k by sinusoidal rotary position embeddings (RoPE, interleaved
pairs: sin / cos of a fixed table built for max_position_embeddings, the value is not rotated); GELU FFN), after
`junnyu/roformer_chinese_base` (the brief's "junnan/..." is this checkpoint), shrunk.

RoFormerModel (it has no pooler): last_hidden_state.
Shrunk: hidden 768 -> 128 (embedding_size 768 -> 128, equal to hidden as published, so no embedding projection),
12 layers -> 2, 12 heads -> 4 (head_dim 64 -> 32), intermediate 3072 -> 512 (4x kept), vocab 50000 -> 1000.
Kept: max_position_embeddings 1536 (the size of the sinusoidal table), rotary_value false.
Inputs as the RoFormer (BERT-style) tokenizer returns them: input_ids (2, 64) as [CLS] ... [SEP] with the second
sample right-padded by 8 tokens ([CLS] 101, [SEP] 102, [PAD] 0), attention_mask, token_type_ids (all 0, one
segment). Output: last_hidden_state (2, 64, 128).
"""
import torch
from torch import nn
from transformers import RoFormerConfig, RoFormerModel

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_id, cls_id, sep_id = 0, 101, 102
num_pad = 8


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = RoFormerModel(config)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state


def get_inputs():
    input_ids = torch.randint(110, vocab_size, (batch_size, seq_len))
    token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, 0] = cls_id
    input_ids[0, -1] = sep_id
    input_ids[1, -num_pad - 1] = sep_id
    input_ids[1, -num_pad:] = pad_id
    attention_mask[1, -num_pad:] = 0
    return [input_ids, attention_mask, token_type_ids]


def get_init_inputs():
    # junnyu/roformer_chinese_base config.json. Kept: gelu, layer_norm_eps 1e-12, max_position_embeddings 1536,
    # type_vocab_size 2, initializer_range 0.02, pad 0, rotary_value false, dropouts 0.1 (inactive in eval).
    return [RoFormerConfig(
        vocab_size=vocab_size,  # published 50000
        embedding_size=128,  # published 768
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=1536,
        type_vocab_size=2,
        initializer_range=0.02,
        layer_norm_eps=1e-12,
        pad_token_id=pad_id,
        rotary_value=False,
    )]
