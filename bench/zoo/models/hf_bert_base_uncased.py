"""BERT-base-uncased: the published config of `google-bert/bert-base-uncased` (= BertConfig() defaults).

BertModel with its pooler. Sequence length 512 (max_position_embeddings).
Output: (last_hidden_state (batch, 512, 768), pooler_output (batch, 768)).
"""
import torch
from torch import nn
from transformers import BertConfig, BertModel

batch_size = 1
seq_len = 128  # BERT's full context is 512 (max_position_embeddings): shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BertModel(config)

    def forward(self, input_ids):
        out = self.model(input_ids=input_ids)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    return [torch.randint(0, 30522, (batch_size, seq_len))]


def get_init_inputs():
    # bert-base-uncased config.json: vocab 30522, hidden 768, 12 layers, 12 heads, intermediate 3072, gelu,
    # max_position_embeddings 512, type_vocab 2, layer_norm_eps 1e-12: all BertConfig defaults.
    return [BertConfig()]
