import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 512)
        self.fc2 = nn.Linear(512, 16)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.fc1(x) * 50.0)
        return self.fc2(h) + x[:, :16] * 0.0


def get_inputs():
    return [torch.randn(128, 256)]


def get_init_inputs():
    return []
