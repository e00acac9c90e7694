"""EfficientLoFTR (Wang et al. 2024, "Efficient LoFTR: Semi-Dense Local Feature Matching with Sparse-Like Speed"):
a detector-free matcher for an image pair. Both grayscale images go through a RepVGG backbone (each block: a 3x3
conv + BN, a 1x1 conv + BN and, where shapes allow, an identity BN, summed, then ReLU; four stages at strides 2, 2,
4, 8) to coarse features at 1/8 resolution. The coarse level is a LoFTR transformer with aggregated attention: in
each layer a self-attention and a cross-attention block, each of which aggregates its queries with a depthwise 4x4
stride-4 conv and its keys / values with 4x4 max-pooling, runs multi-head attention on the 16x smaller token sets
(2D RoPE on the self-attention, the (y, x) frequencies interleaved across the whole hidden size), bilinearly
upsamples the result back by 4, concatenates it to the input and adds an MLP (2x width, LeakyReLU, LayerNorm) as a
residual; the cross-attention is applied image 0 <- image 1, then image 1 <- the updated image 0 (as the original
code does). Coarse matching: dual-softmax of the feature similarity (temperature 0.1), threshold 0.2, border removal
and mutual nearest neighbours, one candidate per coarse cell (unmatched cells get index -1 and score 0). Fine
level: a feature pyramid fuses the transformed coarse map with the 1/4 and 1/2 backbone maps (1x1 / 3x3 convs, BN,
LeakyReLU, bilinear 2x upsampling) up to full resolution; 8 x 8 windows around each coarse cell in image 0 and
10 x 10 windows in image 1 are unfolded and gathered at the coarse matches; a first stage picks the best fine
position by dual-softmax over the leading channels, a second stage refines image 1's position by a softmax
expectation over the 3 x 3 neighbourhood using the last 8 channels; keypoints are normalized by the image size.

EfficientLoFTRForKeypointMatching after `zju-community/efficientloftr`, shrunk.
Shrunk: stage_num_blocks [1, 2, 4, 14] -> [1, 2, 2, 2], out_features [64, 64, 128, 256] -> [32, 32, 64, 128],
hidden 256 -> 128 (head dim 32 -> 16), 4 attention layers -> 2, images 480 x 640 -> 128 x 160 (coarse grid
60 x 80 -> 16 x 20, aggregated 4 x 5). Kept: strides [2, 1, 2, 2], 8 heads, RoPE theta 1e4 with
partial_rotary_factor 4 (= heads / 2, which makes the frequencies span the hidden size), aggregation kernel / stride
4, LeakyReLU MLP, coarse threshold 0.2 / temperature 0.1 / border 2, fine kernel 8, fine slice dim 8, fine regress
temperature 10.
The batch has 2 pairs: image 1 of each pair is image 0 shifted by 8 px (one coarse cell) right and down, with
noise, so that the pair has true correspondences; the convs are re-initialized (see Model.__init__).
Input: pixel_values (2, 2, 3, 128, 160): per sample an image pair, grayscale in [0, 1] with identical channels, as
EfficientLoFTRImageProcessor returns them (the model reads channel 0).
Outputs: matches (2, 2, 320) (int64, the matched coarse-cell index in the other image or -1), matching_scores
(2, 2, 320), keypoints (2, 2, 320, 2) (normalized (x, y); computed for every cell, meaningful where matched).
All sizes are fixed by the coarse grid (one slot per coarse cell); which slots match depends on the data (here 1
and 5 mutual matches, all at the true one-cell shift). As in the library, the two (batch, N) index tensors are
joined with torch.cat(...).reshape(batch, 2, N), so for batch > 1 the rows of `matches` mix the pairs (matches[0]
holds pair 0's and pair 1's image-1 -> image-0 indices, matches[1] both pairs' image-0 -> image-1 indices, each then
masked to -1 with the scores of its own slot); reproduced as is.
"""
import torch
from torch import nn
from transformers import EfficientLoFTRConfig, EfficientLoFTRForKeypointMatching

batch_size = 2
height, width = 128, 160  # published (processor) 480 x 640


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = EfficientLoFTRForKeypointMatching(config)
        # transformers initializes every BatchNorm weight from N(0, 0.02) with running stats mean 0 / var 1, so in
        # eval every RepVGG block multiplies the signal by ~0.02: the coarse backbone features come out ~1e-16 and
        # the matches no longer depend on the images. Stand in for trained weights: BN weights 1 and the dense convs
        # He-normal (fan_in), so the backbone keeps the signal's scale (coarse features ~10).
        for module in self.model.modules():
            if isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
            elif isinstance(module, nn.Conv2d) and module.groups == 1:
                nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.matches, out.matching_scores, out.keypoints


def get_inputs():
    shift = 8
    coarse = torch.rand(batch_size, 1, (height + shift) // 4, (width + shift) // 4)
    scene = nn.functional.interpolate(coarse, size=(height + shift, width + shift), mode="bicubic", align_corners=False)
    image0 = scene[..., :height, :width]
    image1 = scene[..., shift:, shift:]
    pair = torch.stack([image0, image1], dim=1)  # (batch, 2, 1, height, width)
    pair = (pair + 0.02 * torch.randn_like(pair)).clamp(0.0, 1.0)
    return [pair.expand(batch_size, 2, 3, height, width).contiguous()]


def get_init_inputs():
    # zju-community/efficientloftr config.json. Kept: stage_stride [2, 1, 2, 2], relu backbone, 8 heads, no attention
    # bias, aggregation kernel / stride 4, leaky_relu MLP, rope theta 1e4 / partial_rotary_factor 4, coarse matching
    # (softmax on, threshold 0.2, temperature 0.1, border removal 2), fine_kernel_size 8, fine_matching_slice_dim 8,
    # fine_matching_regress_temperature 10, batch_norm_eps 1e-5.
    return [EfficientLoFTRConfig(
        stage_num_blocks=[1, 2, 2, 2],  # published [1, 2, 4, 14]
        out_features=[32, 32, 64, 128],  # published [64, 64, 128, 256]
        stage_stride=[2, 1, 2, 2],
        hidden_size=128,  # published 256
        activation_function="relu",
        num_attention_layers=2,  # published 4
        num_attention_heads=8,
        attention_bias=False,
        q_aggregation_kernel_size=4,
        kv_aggregation_kernel_size=4,
        q_aggregation_stride=4,
        kv_aggregation_stride=4,
        mlp_activation_function="leaky_relu",
        coarse_matching_skip_softmax=False,
        coarse_matching_threshold=0.2,
        coarse_matching_temperature=0.1,
        coarse_matching_border_removal=2,
        fine_kernel_size=8,
        fine_matching_slice_dim=8,
        fine_matching_regress_temperature=10.0,
        batch_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 4.0},
    )]
