"""SuperGlue (Sarlin, DeTone, Malisiewicz & Rabinovich, CVPR 2020, "SuperGlue: Learning Feature Matching with Graph
Neural Networks", `magic-leap-community/superglue_outdoor`, SuperGlueForKeypointMatching): sparse keypoint matching
as an optimal-transport problem, run on SuperPoint detections, shrunk. One forward on a batch of image pairs:
  - SuperPoint (VGG-style encoder, 65-channel keypoint head -> softmax -> depth-to-space score map, NMS by repeated
    max-pooling, threshold, border removal, top-k; descriptor head bilinearly sampled at the keypoints and
    L2-normalised; per-image keypoint counts zero-padded with a mask) detects and describes both images;
  - keypoint encoder: (x, y) normalised by 0.7 x the longer side around the image centre, concatenated with the
    detection score, through an MLP of Linear + BatchNorm1d + ReLU layers, added to the descriptor;
  - attentional graph neural network: alternating "self" layers (each keypoint attends to the keypoints of its own
    image) and "cross" layers (to the keypoints of the other image), multi-head attention masked over padding, the
    message concatenated with the state through a 2-layer MLP (Linear, BatchNorm1d, ReLU, Linear) as a residual;
  - final linear projection; the score matrix is the scaled inner product of the two images' descriptors, padded
    pairs masked, then augmented with a "dustbin" row and column holding one learned scalar (bin_score);
  - optimal transport: 100 iterations of log-space Sinkhorn normalisation (alternating logsumexp over rows and
    columns, a Python loop) towards marginals of 1 per keypoint and N / M for the dustbins;
  - matches: argmax per row and per column, mutual-nearest check, exp of the log-assignment as the score,
    thresholded (0.0), -1 for unmatched keypoints.
Outputs (matches (2, 2, N) int, matching_scores (2, 2, N), keypoints (2, 2, N, 2) normalised to [0, 1], mask (2, 2, N)
int); N = the largest per-image keypoint count (capped at 256; ~200 here, different in each image, so the padding
mask is exercised), so N depends on the data.
Shrunk: SuperGlue hidden 256 -> 64 (= SuperPoint descriptor dim, which has no projection in between: 256 -> 64),
keypoint encoder (32, 64, 128, 256) -> (16, 32), GNN 9 x (self, cross) -> 2 x (self, cross), 4 heads kept (head dim
64 -> 16); SuperPoint encoder (64, 64, 128, 128) -> (32, 32, 64, 64), decoder 256 -> 128, max_keypoints -1
(uncapped) -> 256; images 480 x 640 -> 96 x 128. Kept: 100 Sinkhorn iterations, matching_threshold 0.0, SuperPoint
threshold 0.005 / NMS radius 4 / border 4.
Stand-ins for trained weights (as in hf_lightglue): at the library's N(0, 0.02) init the SuperPoint score map is
flat (every pixel ~1/65), so its convs are re-initialised He-normal (fan_in); BatchNorm layers keep their fresh
identity statistics.
Input: pixel_values (2, 2, 3, 96, 128): per sample an image pair, grayscale in [0, 1] with identical channels (as
SuperGlueImageProcessor returns them); image 1 is image 0 shifted by 8 px right and down, plus noise.
"""
import torch
from torch import nn
from transformers import SuperGlueConfig, SuperGlueForKeypointMatching, SuperPointConfig

batch_size = 2
height, width = 96, 128  # published (processor) 480 x 640


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SuperGlueForKeypointMatching(config)
        with torch.no_grad():
            for module in self.model.keypoint_detector.modules():
                if isinstance(module, nn.Conv2d):
                    nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.matches, out.matching_scores, out.keypoints, out.mask


def get_inputs():
    shift = 8
    coarse = torch.rand(batch_size, 1, (height + shift) // 8, (width + shift) // 8)
    scene = nn.functional.interpolate(coarse, size=(height + shift, width + shift), mode="bicubic", align_corners=False)
    image0 = scene[..., :height, :width]
    image1 = scene[..., shift:, shift:]
    pair = torch.stack([image0, image1], dim=1)  # (batch, 2, 1, height, width)
    pair = (pair + 0.02 * torch.randn_like(pair)).clamp(0.0, 1.0)
    return [pair.expand(batch_size, 2, 3, height, width).contiguous()]


def get_init_inputs():
    # magic-leap-community/superglue_outdoor layout. Kept: 4 heads, sinkhorn_iterations 100, matching_threshold 0.0;
    # SuperPoint keypoint_decoder_dim 65, keypoint_threshold 0.005, nms_radius 4, border_removal_distance 4.
    keypoint_detector_config = SuperPointConfig(
        encoder_hidden_sizes=[32, 32, 64, 64],  # published [64, 64, 128, 128]
        decoder_hidden_size=128,  # published 256
        keypoint_decoder_dim=65,
        descriptor_decoder_dim=64,  # published 256 (= SuperGlue hidden size)
        keypoint_threshold=0.005,
        max_keypoints=256,  # published -1
        nms_radius=4,
        border_removal_distance=4,
    )
    return [SuperGlueConfig(
        keypoint_detector_config=keypoint_detector_config,
        hidden_size=64,  # published 256
        keypoint_encoder_sizes=[16, 32],  # published [32, 64, 128, 256]
        gnn_layers_types=["self", "cross"] * 2,  # published ["self", "cross"] * 9
        num_attention_heads=4,
        sinkhorn_iterations=100,
        matching_threshold=0.0,
    )]
