"""ConvBERT encoder (mixed attention: half the heads are self-attention, the other half span-based dynamic
convolution whose kernels are generated per token from a depthwise-separable conv over the keys; grouped linear
FFN), after `YituTech/conv-bert-base`, shrunk. ConvBertModel; output: last_hidden_state (2, 16, 64).
"""
import torch
from torch import nn
from transformers import ConvBertConfig, ConvBertModel

batch_size = 2
seq_len = 16
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ConvBertModel(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = 0  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Kept: head_ratio 2, conv_kernel_size 9, num_groups 1, gelu.
    return [ConvBertConfig(
        vocab_size=vocab_size,  # published 30522
        hidden_size=64,  # published 768
        embedding_size=64,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        max_position_embeddings=64,  # published 512
        head_ratio=2,
        conv_kernel_size=9,
        num_groups=1,
    )]
