"""torchvision Keypoint R-CNN (He et al. 2017, "Mask R-CNN", the keypoint branch) in eval mode, after the
published `keypointrcnn_resnet50_fpn` builder (59.1M parameters), built from torchvision's detection classes with
weights=None and a smaller backbone and heads: `KeypointRCNN` (Faster R-CNN: GeneralizedRCNNTransform, ResNet +
FPN with a max-pool P6 level, RPN with 3 aspect ratios x 5 levels of anchors, multi-scale RoIAlign 7 x 7 box head
with two FC layers, person/background classifier + box regression) plus the keypoint branch: multi-scale
RoIAlign 14 x 14 on the kept detections, eight 3 x 3 conv + ReLU layers, a stride-2 transposed conv and a 2x
bilinear upsample to 17 keypoint heatmaps of 56 x 56, then per detection the heatmap is resized (bicubic) to
the box size and its argmax taken as the keypoint (a Python loop over detections).

Shrunk: backbone ResNet-50 -> a ResNet-18 layout with one BasicBlock per stage (torchvision `ResNet`, widths
64..512, BatchNorm as the builder uses without pretrained weights), all four stages still feed the FPN
(BackboneWithFPN, return layers layer1..layer4 as in the builder); FPN width 256 -> 64; box head
TwoMLPHead 12544 -> 1024 -> 1024 -> 3136 -> 256 -> 256; keypoint head convs 8 x 512 -> 8 x 64 channels (all 8
layers kept); transform min_size/max_size (640..800)/1333 -> 128/128, so images stay 128 x 128; RPN proposals
kept after NMS at test time 1000 -> 200 (a 128 x 128 image has ~4k anchors, ~670 proposals survive NMS here);
box_detections_per_img 100 -> 10. Kept: 2 classes (background, person), 17 COCO keypoints, the default anchors
(32..512), the RPN pre-NMS top-k (1000 per level), RPN/box thresholds and NMS settings. 6.3M parameters.
With random weights the person softmax score is ~0.5, above the default box_score_thresh 0.05, so the score
filter, NMS, top-k and the keypoint branch all keep work to do.
Input: a batch of RGB images in [0, 1] (batch, 3, 128, 128), passed to the model as a list as torchvision expects.
Output: for each image its boxes (n, 4), scores (n,), labels (n,) (int64), keypoints (n, 17, 3) (x, y,
visibility) and keypoint scores (n, 17), concatenated into one flat tuple; n depends on the data (at most 10).
"""
import torch
from torch import nn
from torchvision.models.detection import KeypointRCNN
from torchvision.models.detection.backbone_utils import BackboneWithFPN
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
from torchvision.models.detection.keypoint_rcnn import KeypointRCNNHeads, KeypointRCNNPredictor
from torchvision.models.resnet import BasicBlock, ResNet

batch_size = 2
image_size = 128  # min_size/max_size (640..800)/1333 in the published builder
num_classes = 2  # background, person
num_keypoints = 17  # COCO person keypoints
fpn_channels = 64  # 256 in the published builder
box_representation = 256  # 1024
keypoint_channels = 64  # 512
rpn_proposals = 200  # rpn_post_nms_top_n_test 1000
detections_per_img = 10  # 100


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        trunk = ResNet(BasicBlock, [1, 1, 1, 1])  # ResNet-18 layout, one block per stage; ResNet-50 published
        backbone = BackboneWithFPN(
            trunk,
            return_layers={"layer1": "0", "layer2": "1", "layer3": "2", "layer4": "3"},
            in_channels_list=[64, 128, 256, 512],
            out_channels=fpn_channels,
        )
        self.model = KeypointRCNN(
            backbone,
            min_size=image_size,
            max_size=image_size,
            rpn_post_nms_top_n_test=rpn_proposals,
            box_head=TwoMLPHead(fpn_channels * 7 * 7, box_representation),
            box_predictor=FastRCNNPredictor(box_representation, num_classes),
            box_detections_per_img=detections_per_img,
            keypoint_head=KeypointRCNNHeads(fpn_channels, [keypoint_channels] * 8),
            keypoint_predictor=KeypointRCNNPredictor(keypoint_channels, num_keypoints),
        )

    def forward(self, images):
        out = self.model(list(images))
        return tuple(
            t for d in out for t in (d["boxes"], d["scores"], d["labels"], d["keypoints"], d["keypoints_scores"])
        )


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return []
