"""torchvision `ssd300_vgg16` (weights=None, weights_backbone=None) in eval mode: SSD300 (Liu et al. 2016, "SSD:
Single Shot MultiBox Detector") on a VGG-16 backbone: conv1-conv5 with the third max-pool in ceil mode, conv4_3
features rescaled by a learned per-channel L2 norm (init 20), pool5 as a 3 x 3 stride-1 max-pool and fc6 / fc7
turned into a dilated (6) 3 x 3 conv + a 1 x 1 conv; four extra blocks (1x1 + strided / unpadded 3x3 convs) give six
feature maps (38, 19, 10, 5, 3, 1) with 4 / 6 / 6 / 6 / 4 / 4 default boxes per cell (8732 in all); per map a 3x3
conv classification head and a 3x3 conv box-regression head. The transform resizes every image to the fixed
300 x 300 and normalizes it caffe-style (mean subtraction, scale 0-255). Data-dependent post-processing: box decoding
(weights 10, 10, 5, 5) and clipping to the image, softmax over the classes, per class a score threshold (0.01) and
top-k (400) candidates, batched NMS (0.45), the top 200 detections, boxes mapped back to the input size.

Published builder unchanged (VGG-16 widths, 300 x 300 internal size, anchors, thresholds); shrunk: num_classes
91 (COCO) -> 5 (background + 4), input images 160 x 160 (upsampled to 300 x 300 inside the model; boxes come back
in 160 x 160 coordinates), 24.1M parameters (35.6M published).
Input: a batch of RGB images in [0, 1] (batch, 3, 160, 160), passed to the model as a list as torchvision expects.
Output: for each image its boxes (n, 4), scores (n,), labels (n,) (int64), concatenated into one flat tuple; n
depends on the data (200, the detections_per_img cap, for both images here: with random weights the class logits
are large, the kept scores are ~0.99, far above the 0.01 threshold).
"""
import torch
import torchvision
from torch import nn

batch_size = 2
image_size = 160
num_classes = 5  # published 91


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.detection.ssd300_vgg16(
            weights=None, weights_backbone=None, num_classes=num_classes
        )

    def forward(self, images):
        out = self.model(list(images))
        return tuple(t for d in out for t in (d["boxes"], d["scores"], d["labels"]))


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
