"""Tiny MLP on its doubled input."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features=8, hidden=16, out_features=4):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, w):
        return self.fc2(self.fc1(w * 2))


def get_inputs():
    return [torch.randn(2, 8)]


def get_init_inputs():
    return [8, 16, 4]
