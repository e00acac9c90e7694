"""ALBERT (factorized embedding -> projection to hidden, one transformer layer whose weights are shared by all
layers, MLM head back to the embedding size with tied decoder), after `albert/albert-base-v2`, shrunk.

AlbertForMaskedLM. As published, num_hidden_groups 1 and inner_group_num 1: a single AlbertLayer is applied
num_hidden_layers times (here 4 times), so the parameter count does not grow with depth.
Shrunk: embedding_size 128 -> 32, hidden 768 -> 128, 12 layers -> 4 (still one shared layer), 12 heads -> 4,
intermediate 3072 -> 512, vocab 30000 -> 1000.
Inputs: input_ids (2, 32), attention_mask with the second sample right-padded (pad id 0).
Output: MLM logits (2, 32, 1000).
"""
import torch
from torch import nn
from transformers import AlbertConfig, AlbertForMaskedLM

batch_size = 2
seq_len = 32
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AlbertForMaskedLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(5, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 2  # [CLS]
    input_ids[0, -1] = 3  # [SEP]
    input_ids[1, -6] = 3
    input_ids[1, -5:] = 0  # pad
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # albert/albert-base-v2 config.json. Kept: gelu_new, num_hidden_groups 1, inner_group_num 1 (all layers
    # share one layer's weights), dropout 0 (v2), layer_norm_eps 1e-12, max_position_embeddings 512,
    # type_vocab_size 2, tied MLM decoder, pad 0 / bos 2 / eos 3.
    return [AlbertConfig(
        vocab_size=vocab_size,  # published 30000
        embedding_size=32,  # published 128
        hidden_size=128,  # published 768
        num_hidden_layers=4,  # published 12
        num_hidden_groups=1,
        inner_group_num=1,
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu_new",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        max_position_embeddings=512,
        type_vocab_size=2,
        layer_norm_eps=1e-12,
        pad_token_id=0,
        bos_token_id=2,
        eos_token_id=3,
    )]
