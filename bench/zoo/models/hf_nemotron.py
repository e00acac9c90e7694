"""Nemotron-4 / Minitron decoder LM (GQA, rotary embedding on half of each head's dims only (partial_rotary_factor
0.5), LayerNorm1P (a LayerNorm with bias whose scale is stored zero-centred and applied as weight + 1), non-gated
squared-ReLU MLP (relu2: relu(x)^2) with no bias, no attention bias, untied LM head), after
`nvidia/Minitron-4B-Base` (Nemotron-4 15B pruned and distilled), shrunk.

NemotronForCausalLM. The published head_dim (128) is hidden / heads, so the shrunk config keeps that relation:
16-dim heads of which the first 8 dims are rotated.
Shrunk: hidden 3072 -> 96, 32 layers -> 2, 24 heads -> 6, 8 kv heads -> 2 (GQA, 3 query heads per kv head
kept), head_dim 128 -> 16, intermediate 9216 -> 288 (3x kept), vocab 256000 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad id 0 = <unk>;
the checkpoint defines no pad token). Output: LM logits (2, 64, 1000).
transformers' init sets the LayerNorm1P weight to 1, so the applied scale is 2 (NeMo's zero-centred init gives 1);
a uniform scale on a freshly built model, left as the library builds it.
"""
import torch
from torch import nn
from transformers import NemotronConfig, NemotronForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = NemotronForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 2  # <s>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # nvidia/Minitron-4B-Base config.json. Kept: relu2, norm_eps 1e-5, rope_theta 1e4, partial_rotary_factor 0.5,
    # max_position_embeddings 4096, initializer_range 0.0134, untied head, bos 2 / eos 3, no attention / MLP bias.
    return [NemotronConfig(
        vocab_size=vocab_size,  # published 256000
        hidden_size=96,  # published 3072
        intermediate_size=288,  # published 9216
        num_hidden_layers=2,  # published 32
        num_attention_heads=6,  # published 24
        num_key_value_heads=2,  # published 8
        head_dim=16,  # published 128
        hidden_act="relu2",
        max_position_embeddings=4096,
        initializer_range=0.0134,
        norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
        attention_bias=False,
        attention_dropout=0.0,
        mlp_bias=False,
        tie_word_embeddings=False,
        bos_token_id=2,
        eos_token_id=3,
        pad_token_id=pad_token_id,
    )]
