"""torchvision `fasterrcnn_mobilenet_v3_large_320_fpn` (weights=None, weights_backbone=None) in eval mode:
Faster R-CNN with a MobileNetV3-Large FPN backbone at low resolution (320), the published torchvision builder unchanged.

Detection with data-dependent post-processing: image normalisation/resize (GeneralizedRCNNTransform), RPN anchors,
proposal top-k + NMS, RoIAlign box head, per-class score threshold + NMS, boxes mapped back to the input size.
Input: a batch of RGB images in [0, 1] (batch, 3, 320, 320), passed to the model as a list as torchvision expects.
Output: for each image its boxes (n, 4), scores (n,), labels (n,) (int64), concatenated into one flat tuple;
n depends on the data. With random weights every class score is ~0.011 (softmax over 91 classes), below the
default box_score_thresh 0.05: the file passes box_score_thresh=0.0, as one does to see a random model's
detections, so the score filter, NMS and top-100 all keep work to do (100 boxes per image).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 320


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights=None, weights_backbone=None, box_score_thresh=0.0
        )

    def forward(self, images):
        out = self.model(list(images))
        return tuple(t for d in out for t in (d["boxes"], d["scores"], d["labels"]))


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
