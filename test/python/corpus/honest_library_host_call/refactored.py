"""Refactored MLP: children only."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers.cache_utils import DynamicCache, EncoderDecoderCache
from transformers.utils import is_torchdynamo_compiling
from children.linear import Model as Linear
from children.relu import Model as ReLU


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = Linear(in_features, hidden)
        self.fc2 = Linear(hidden, out_features)
        self.act = ReLU()

    def forward(self, x):
        cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
        h = self.fc1(x)
        if not is_torchdynamo_compiling() and cache.get_seq_length() == 0:
            h = self.act(h)
        return self.fc2(h)


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
