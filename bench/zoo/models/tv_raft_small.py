"""torchvision `raft_small` (weights=None): RAFT-Small optical flow (feature + context encoders, all-pairs
correlation pyramid, ConvGRU recurrent flow updates with grid_sample lookups, bilinear flow upsampling).

Published builder unchanged; shrunk: 4 flow updates instead of torchvision's default 12 (passed as forward's
num_flow_updates), frames 128 x 128. Inputs: two frames (batch, 3, 128, 128) in [-1, 1].
Output: the last flow prediction (batch, 2, 128, 128).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 128
num_flow_updates = 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.optical_flow.raft_small(weights=None)

    def forward(self, img1, img2):
        flows = self.model(img1, img2, num_flow_updates=num_flow_updates)
        return flows[-1]


def get_inputs():
    img1 = torch.rand(batch_size, 3, image_size, image_size) * 2 - 1
    img2 = torch.rand(batch_size, 3, image_size, image_size) * 2 - 1
    return [img1, img2]


def get_init_inputs():
    return []
