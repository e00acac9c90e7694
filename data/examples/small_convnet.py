"""A small image classifier: two conv stages and a linear head (example model, level 3).

Each stage is Conv2d 3x3 (padding 1) -> BatchNorm2d -> ReLU -> MaxPool2d 2x2; then global average
pooling, flatten and a linear classifier over 10 classes.

Inputs:  images [2, 3, 32, 32] float32
Output:  logits [2, 10] float32
"""

import torch
import torch.nn as nn

BATCH_SIZE = 2
IN_CHANNELS = 3
IMAGE_SIZE = 32
NUM_CLASSES = 10


class ConvStage(nn.Module):
    """Conv -> BN -> ReLU -> 2x2 max-pool: halves the spatial size."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)

    def forward(self, x):
        return self.pool(self.relu(self.bn(self.conv(x))))


class Model(nn.Module):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.stage1 = ConvStage(in_channels, 16)
        self.stage2 = ConvStage(16, 32)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.stage2(self.stage1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.classifier(x)


def get_inputs():
    return [torch.randn(BATCH_SIZE, IN_CHANNELS, IMAGE_SIZE, IMAGE_SIZE)]


def get_init_inputs():
    return [IN_CHANNELS, NUM_CLASSES]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model(*get_init_inputs()).eval()
    with torch.no_grad():
        logits = model(*get_inputs())
    assert logits.shape == (BATCH_SIZE, NUM_CLASSES), logits.shape
    assert torch.isfinite(logits).all(), "non-finite logits"
    print("PASS")
