"""RoBERTa-base: the published config of `FacebookAI/roberta-base`.

RobertaModel with its pooler. Sequence length 512 (514 positions = 512 + the padding offset 2).
Output: (last_hidden_state (batch, 512, 768), pooler_output (batch, 768)).
"""
import torch
from torch import nn
from transformers import RobertaConfig, RobertaModel

batch_size = 1
seq_len = 128  # the context is 512 (max_position_embeddings 514 - padding_idx 1 - 1): shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = RobertaModel(config)

    def forward(self, input_ids):
        out = self.model(input_ids=input_ids)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    # ids from 3 up: no <pad> (1) among them, so every position id is a real one (2 .. 513)
    return [torch.randint(3, 50265, (batch_size, seq_len))]


def get_init_inputs():
    # roberta-base config.json (fields that differ from RobertaConfig's defaults; vocab 50265, hidden 768,
    # 12 layers, 12 heads, intermediate 3072, gelu, pad 1 / bos 0 / eos 2 are defaults).
    return [RobertaConfig(
        max_position_embeddings=514,
        type_vocab_size=1,
        layer_norm_eps=1e-5,
    )]
