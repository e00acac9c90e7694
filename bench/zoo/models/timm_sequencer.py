"""timm `sequencer2d_s` with small kwargs (pretrained=False): Sequencer2D (Tatsunami & Taki 2022, "Sequencer: Deep
LSTM for Image Classification"): a 7 x 7 patch embedding, then channels-last (NHWC) stages of Sequencer2D blocks
in which the token mixer is a pair of bidirectional LSTMs, one run down every column (vertical) and one along
every row (horizontal), each batched over the other axis, their four hidden-state streams concatenated
(union "cat") and fused back to the width by a linear layer; pre-LayerNorm residuals with an MLP channel mixer
(ratio 3); patch-merging convs between stages (2 x 2 into stage 2, 1 x 1 into stages 3 and 4), a final
LayerNorm, average pooling and a linear head.

Shrunk (published sequencer2d_s: 224 x 224 images, so 32 x 32 then 16 x 16 token grids, layers (4, 3, 8, 3),
embed_dims (192, 384, 384, 384), LSTM hidden sizes (48, 96, 96, 96), 27.7M parameters): 112 x 112 images
(16 x 16 then 8 x 8 grids, so LSTM sequences of 16 and 8 steps), layers (1, 1, 2, 1), embed_dims
(96, 192, 192, 192), hidden sizes (24, 48, 48, 48) (width / 4 as published), patch sizes (7, 2, 1, 1), MLP ratio
3, bidirectional, union "cat" and the fc as published; 10 classes, 2.1M parameters.
timm zero-initializes the classifier (weight 0, bias 0), so a freshly built model returns all-zero logits
whatever its input; the head is re-initialized with PyTorch's default Linear init in Model.__init__ instead.
Input: RGB images (batch, 3, 112, 112). Output: logits (batch, 10).
"""
import timm
import torch
from torch import nn

batch_size = 2
image_size = 112  # 224 in the published config
num_classes = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = timm.create_model(
            "sequencer2d_s",
            pretrained=False,
            num_classes=num_classes,
            layers=(1, 1, 2, 1),  # (4, 3, 8, 3)
            embed_dims=(96, 192, 192, 192),  # (192, 384, 384, 384)
            hidden_sizes=(24, 48, 48, 48),  # (48, 96, 96, 96)
        )
        # Sequencer's init zeroes the head, so untrained logits are all 0 for any input. Stand in for trained
        # weights: give the classifier PyTorch's default Linear init.
        self.model.head.fc.reset_parameters()

    def forward(self, x):
        return self.model(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
