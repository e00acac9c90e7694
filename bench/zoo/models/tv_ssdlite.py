"""torchvision `ssdlite320_mobilenet_v3_large` (weights=None, weights_backbone=None) in eval mode: SSDlite
(MobileNetV2 paper's SSD variant with depthwise-separable heads) on a MobileNetV3-Large backbone with extra
feature layers, published builder unchanged, 3.4M parameters.

Detection with data-dependent post-processing: softmax over 91 classes, per-class score threshold (0.001) + top-k
(300), batched NMS, top 300 detections, boxes mapped back to the input size.
Input: a batch of RGB images in [0, 1] at the model's native 320 x 320 (batch, 3, 320, 320), passed to the model
as a list as torchvision expects.
Output: for each image its boxes (n, 4), scores (n,), labels (n,) (int64), concatenated into one flat tuple;
n depends on the data (300, the detections_per_img cap, for both images here;
the default threshold is low enough that random weights produce detections).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 320


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)

    def forward(self, images):
        out = self.model(list(images))
        return tuple(t for d in out for t in (d["boxes"], d["scores"], d["labels"]))


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
