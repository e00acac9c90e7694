"""Longformer (RoBERTa-style encoder whose self-attention is a banded sliding-window attention plus global
attention for selected tokens, with separate query/key/value projections for the global tokens), after
`allenai/longformer-base-4096`, shrunk.

LongformerModel. attention_window 16 (8 tokens each side) on a 60-token input: the model pads the sequence
internally to a multiple of the window (64), runs the chunked banded attention, and strips the padding again.
The first token (<s>) gets global attention via global_attention_mask, as for classification / QA use.
Shrunk: hidden 768 -> 128, 12 layers -> 3, 12 heads -> 4, intermediate 3072 -> 512, attention_window 512 -> 16,
max_position_embeddings 4098 -> 130, vocab 50265 -> 1000.
Inputs: input_ids (2, 60), attention_mask (2, 60) with the second sample right-padded (pad id 1),
global_attention_mask (2, 60) set on the first token.
Output: (last_hidden_state (2, 60, 128), pooler_output (2, 128)).
"""
import torch
from torch import nn
from transformers import LongformerConfig, LongformerModel

batch_size = 2
seq_len = 60
vocab_size = 1000
attention_window = 16


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LongformerModel(config)

    def forward(self, input_ids, attention_mask, global_attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         global_attention_mask=global_attention_mask)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 0  # <s>
    input_ids[0, -1] = 2  # </s>
    input_ids[1, -8] = 2
    input_ids[1, -7:] = 1  # pad
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -7:] = 0
    global_attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    global_attention_mask[:, 0] = 1  # global attention on <s>
    return [input_ids, attention_mask, global_attention_mask]


def get_init_inputs():
    # allenai/longformer-base-4096 config.json. Kept: gelu, layer_norm_eps 1e-5, type_vocab_size 1,
    # dropout 0.1 (inactive in eval), the same window in every layer, pad 1 / bos 0 / eos 2 / sep 2.
    return [LongformerConfig(
        vocab_size=vocab_size,  # published 50265
        hidden_size=128,  # published 768
        num_hidden_layers=3,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        attention_window=[attention_window] * 3,  # published [512] * 12
        max_position_embeddings=130,  # published 4098 (= 4096 + pad offset 2)
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        type_vocab_size=1,
        layer_norm_eps=1e-5,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        sep_token_id=2,
    )]
