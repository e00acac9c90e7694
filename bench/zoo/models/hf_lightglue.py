"""LightGlue (Lindenberger, Sarlin & Pollefeys, ICCV 2023, "LightGlue: Local Feature Matching at Light Speed"): a
sparse keypoint matcher with adaptive depth and width, run on SuperPoint detections. One forward on a batch of image
pairs: SuperPoint (VGG encoder, 65-channel keypoint head + NMS + threshold + top-k, 256-d descriptor head bilinearly
sampled at the keypoints; per-image keypoint counts zero-padded) detects and describes both images; the descriptors
are projected to the matcher width and the keypoints (normalised by the longer image side) encoded as rotary
embeddings by a learned Fourier projection; each LightGlue layer runs self-attention (with the keypoint rotary
encoding, masked over padded keypoints) and then cross-attention to the other image of the pair (the pair flipped
along a reshape), each followed by an MLP on [state, message] (Linear, LayerNorm, GELU, Linear) as a residual. After
each layer but the last, a token-confidence head decides per pair whether to stop early (ratio of confident
keypoints > depth_confidence) and keypoints that are confidently unmatchable are pruned (width confidence); the
match assignment of the stopping layer is a dual log-softmax of the scaled descriptor similarity plus log-sigmoid
matchabilities (a (M+1) x (N+1) score matrix with dustbins), followed by mutual-nearest filtering and a 0.1 score
threshold; pruned keypoints are scattered back to -1 / 0. After `ETH-CVG/lightglue_superpoint`, shrunk.

LightGlueForKeypointMatching (sdpa). Outputs (matches (2, 2, N) int, matching_scores (2, 2, N), keypoints (2, 2, N,
2) normalised to [0, 1], prune (2, 2, N): the number of layers each keypoint went through); N = the largest
per-image keypoint count (capped at 256), so N, the early-stopping layer and the pruned sets depend on the data.
With these weights no pair stops before the last layer and no keypoint is pruned (the random heads are never
confident), but both decisions are still computed and applied by the model at every layer. Shrunk: LightGlue
descriptor_dim 256 -> 64 (so the input projection from SuperPoint's 256-d descriptors is active), 9 layers -> 3,
heads 4 kept (head_dim 64 -> 16, rotary dim 8); SuperPoint: encoder (64, 64, 128, 128) -> (32, 32, 64, 64), decoder
256 -> 128, descriptors kept 256-d, max_keypoints -1 (uncapped) -> 256; images 480 x 640 -> 128 x 160. Kept:
depth_confidence 0.95, width_confidence 0.99, filter_threshold 0.1, GELU MLPs, SuperPoint threshold 0.005 / NMS
radius 4 / border 4. The SuperPoint convs are re-initialised He-normal and the input / match projections orthogonal
(see Model.__init__; at the library's N(0, 0.02) init the score map and the match similarity are flat). Input:
pixel_values (2, 2, 3, 128, 160): per sample an image pair, grayscale in [0, 1] with identical channels (as
LightGlueImageProcessor returns them); image 1 is image 0 shifted by 8 px right and down, plus noise, so that the
pair has true correspondences.
"""
import torch
from torch import nn
from transformers import LightGlueConfig, LightGlueForKeypointMatching, SuperPointConfig

batch_size = 2
height, width = 128, 160  # published (processor) 480 x 640


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LightGlueForKeypointMatching(config)
        # As in hf_superpoint: at N(0, 0.02) the ten convs before the keypoint softmax shrink the signal to ~1e-6
        # and every pixel scores ~1/65. Stand in for trained weights: He-normal (fan_in) convs.
        for module in self.model.keypoint_detector.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
        # At N(0, 0.02) the projected descriptors (~0.1 in norm) are swamped by the layers' residual messages and the
        # final similarity is flat (every score ~1e-6, no match). Stand in for trained projections: orthogonal, gains
        # 4 (input) and 8 (match assignment), which leaves a handful of mutual matches above the 0.1 threshold.
        nn.init.orthogonal_(self.model.input_projection.weight, gain=4.0)
        for layer in self.model.match_assignment_layers:
            nn.init.orthogonal_(layer.final_projection.weight, gain=8.0)

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.matches, out.matching_scores, out.keypoints, out.prune


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
    # ETH-CVG/lightglue_superpoint config.json. Kept: 4 heads, depth_confidence 0.95, width_confidence 0.99,
    # filter_threshold 0.1, gelu, attention bias; SuperPoint keypoint_decoder_dim 65, descriptor_decoder_dim 256,
    # keypoint_threshold 0.005, nms_radius 4, border_removal_distance 4.
    keypoint_detector_config = SuperPointConfig(
        encoder_hidden_sizes=[32, 32, 64, 64],  # published [64, 64, 128, 128]
        decoder_hidden_size=128,  # published 256
        keypoint_decoder_dim=65,
        descriptor_decoder_dim=256,
        keypoint_threshold=0.005,
        max_keypoints=256,  # published -1
        nms_radius=4,
        border_removal_distance=4,
    )
    return [LightGlueConfig(
        keypoint_detector_config=keypoint_detector_config,
        descriptor_dim=64,  # published 256
        num_hidden_layers=3,  # published 9
        num_attention_heads=4,
        depth_confidence=0.95,
        width_confidence=0.99,
        filter_threshold=0.1,
    )]
