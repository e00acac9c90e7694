"""torchvision `retinanet_resnet50_fpn_v2` (weights=None, weights_backbone=None) in eval mode:
RetinaNet v2 (ResNet-50 FPN backbone, GroupNorm heads, GIoU loss variant), published builder, 38M parameters.

Shrunk: the transform's min_size/max_size are 256 instead of the published 800/1333, so images stay at 256 x 256.
Detection with data-dependent post-processing: per-level score threshold + top-k (1000), batched NMS, top 300
detections, boxes mapped back to the input size.
Input: a batch of RGB images in [0, 1] (batch, 3, 256, 256), passed to the model as a list as torchvision expects.
Output: for each image its boxes (n, 4), scores (n,), labels (n,) (int64), concatenated into one flat tuple;
n depends on the data: with random weights (classifier prior 0.01) the top scores are ~0.0497, just below the
default score_thresh 0.05, so n = 0 for both images here (deterministically).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.detection.retinanet_resnet50_fpn_v2(
            weights=None, weights_backbone=None, min_size=image_size, max_size=image_size
        )

    def forward(self, images):
        out = self.model(list(images))
        return tuple(t for d in out for t in (d["boxes"], d["scores"], d["labels"]))


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
