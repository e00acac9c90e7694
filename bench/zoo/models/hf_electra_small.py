"""ELECTRA-small discriminator: the published config of `google/electra-small-discriminator`.

ElectraForPreTraining (the discriminator with its replaced-token-detection head). Sequence length 512
(max_position_embeddings). Output: per-token logits (batch, 512).
"""
import torch
from torch import nn
from transformers import ElectraConfig, ElectraForPreTraining

batch_size = 1
seq_len = 128  # BERT-class context is 512 (max_position_embeddings): shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ElectraForPreTraining(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).logits


def get_inputs():
    return [torch.randint(0, 30522, (batch_size, seq_len))]


def get_init_inputs():
    # google/electra-small-discriminator config.json = ElectraConfig defaults: embedding_size 128, hidden 256,
    # 12 layers, 4 heads, intermediate 1024, gelu, vocab 30522, max_position_embeddings 512, type_vocab 2.
    return [ElectraConfig()]
