"""torchvision `fcos_resnet50_fpn` (weights=None, weights_backbone=None) in eval mode: FCOS (Tian et al. 2019),
an anchor-free one-stage detector (ResNet-50 FPN backbone, shared GroupNorm heads predicting per-location class
scores, box distances and centerness), published builder, 32M parameters.

Shrunk: the transform's min_size/max_size are 256 instead of the published 800/1333, so images stay at 256 x 256.
score_thresh is 0.0 instead of the default 0.2: with random weights (classifier prior 0.01) the scores
sqrt(sigmoid(cls) * sigmoid(centerness)) stay below ~0.15, so the default threshold keeps nothing.
Detection with data-dependent post-processing: per level, scores sqrt(sigmoid(cls) * sigmoid(centerness)), score
threshold + top-k (1000); then batched NMS, top 100 detections, boxes mapped back to the input size.
Input: a batch of RGB images in [0, 1] (batch, 3, 256, 256), passed to the model as a list as torchvision expects.
Output: for each image its boxes (n, 4), scores (n,), labels (n,) (int64), concatenated into one flat tuple;
n depends on the data (100, the detections_per_img cap, for both images here).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 256
score_thresh = 0.0  # builder default 0.2: with random weights no score reaches it


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.detection.fcos_resnet50_fpn(
            weights=None,
            weights_backbone=None,
            min_size=image_size,
            max_size=image_size,
            score_thresh=score_thresh,
        )

    def forward(self, images):
        out = self.model(list(images))
        return tuple(t for d in out for t in (d["boxes"], d["scores"], d["labels"]))


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
