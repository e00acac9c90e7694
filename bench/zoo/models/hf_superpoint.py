"""SuperPoint interest-point detector and descriptor (a VGG-style encoder on the grayscale image: four blocks of two
3x3 conv + ReLU, the first three followed by 2x2 max-pooling (stride 8 overall); a keypoint head (3x3 conv + ReLU,
1x1 conv to 65 channels: the 64 pixels of each 8 x 8 cell plus a "no keypoint" dustbin) softmaxed over the channels,
the dustbin dropped and the cells unfolded (pixel shuffle by reshapes / permutes) into a full-resolution score map;
non-maximum suppression on that map (9 x 9 max-pooling, two rounds of suppressing the neighbourhood of kept maxima
and admitting new maxima); keypoints = the pixels above the score threshold (torch.nonzero: a data-dependent count),
minus those within 4 pixels of the border; a descriptor head (3x3 conv + ReLU, 1x1 conv to 256) L2-normalized per
cell and bilinearly sampled (grid_sample) at each keypoint, then L2-normalized again; per image, the keypoints,
scores and descriptors are zero-padded to the batch's largest keypoint count), after
`magic-leap-community/superpoint`, at a smaller image size.

SuperPointForKeypointDetection with the published config (encoder (64, 64, 128, 128), decoder 256, 65 keypoint
channels, 256-d descriptors, threshold 0.005, no keypoint cap, NMS radius 4, border 4; 1.30M parameters); nothing
shrunk but the input: 480 x 640 (SuperPointImageProcessor's size) -> 240 x 320 (a 30 x 40 cell grid).
The model runs each image of the batch separately through the keypoint extraction and descriptor sampling (Python
loop over the batch) and then pads; the number of keypoints (the output's second dimension) depends on the data.
Input: pixel_values (2, 3, 240, 320): grayscale images in [0, 1] with the three channels identical, as the processor
returns them with do_grayscale (the model reads the first channel only). Here smooth random images (a random
30 x 40 field bicubically upsampled, plus a little noise) stand in for photos.
Output: (scores (2, N), descriptors (2, N, 256)), N the larger of the two images' keypoint counts (the shorter list
zero-padded). The convs are re-initialized (see Model.__init__) so that the score map is not flat.
"""
import torch
from torch import nn
from transformers import SuperPointConfig, SuperPointForKeypointDetection

batch_size = 2
height, width = 240, 320  # published (processor) 480 x 640


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SuperPointForKeypointDetection(config)
        # transformers initializes every conv with N(0, initializer_range = 0.02) and zero bias: through the ten convs
        # before the keypoint softmax the signal shrinks to ~1e-6, so every one of the 65 probabilities is 1/65 to
        # ~1e-7 (a flat score map: every pixel passes the threshold and NMS picks among rounding-level differences).
        # Stand in for trained weights: every conv He-normal (fan_in, so that a conv + ReLU keeps the signal's scale).
        for module in self.model.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.scores, out.descriptors


def get_inputs():
    coarse = torch.rand(batch_size, 1, height // 8, width // 8)
    gray = nn.functional.interpolate(coarse, size=(height, width), mode="bicubic", align_corners=False)
    gray = (gray + 0.05 * torch.randn(batch_size, 1, height, width)).clamp(0.0, 1.0)
    return [gray.expand(batch_size, 3, height, width).contiguous()]


def get_init_inputs():
    # magic-leap-community/superpoint config.json: every field kept.
    return [SuperPointConfig(
        encoder_hidden_sizes=[64, 64, 128, 128],
        decoder_hidden_size=256,
        keypoint_decoder_dim=65,
        descriptor_decoder_dim=256,
        keypoint_threshold=0.005,
        max_keypoints=-1,
        nms_radius=4,
        border_removal_distance=4,
        initializer_range=0.02,
    )]
