"""A conv + BatchNorm + ReLU block with a pooled linear head: kernels a replacement may fold, fuse or cache."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.head = nn.Linear(16, 10)
        with torch.no_grad():   # running statistics away from the defaults, as after training
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.2, 0.2)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        return self.head(h.mean(dim=(2, 3)))


batch_size = 4


def get_inputs():
    return [torch.randn(batch_size, 8, 16, 16)]


def get_init_inputs():
    return []
