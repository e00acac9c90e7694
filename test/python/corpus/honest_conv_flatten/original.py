"""Tiny convnet."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, cin=3, cout=4, classes=5):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.fc = nn.Linear(cout * 6 * 6, classes)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.fc(torch.flatten(x, 1))


def get_inputs():
    return [torch.randn(1, 3, 6, 6)]


def get_init_inputs():
    return [3, 4, 5]
