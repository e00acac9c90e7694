"""stage rewritten to call its 2 children (as `hdecomp decompose` writes it)."""

import torch
import torch.nn as nn
from children.block import Model as Block
from children.block_holder import Model as BlockHolder


class RefactoredModel(nn.Module):
    def __init__(self, *init_inputs):
        super().__init__()
        self.b1 = Block()
        self.b2 = BlockHolder()

    def forward(self, x):
        b1 = self.b1(x)
        b2 = self.b2(b1)
        return b2


def get_inputs():
    return [torch.randn(1, 4, 8, 8)]


def get_init_inputs():
    return []
