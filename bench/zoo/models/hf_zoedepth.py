"""ZoeDepth metric depth estimation with two metric bins heads and a router (ZoeD-NK: a BEiT backbone (patch-16
embedding, CLS token, no absolute position embedding, per-layer relative position bias tables learned at the 384-pixel
grid and bilinearly resized to the input's patch grid, LayerScale) tapped at four depths; a DPT neck: "project"
readout (each token concatenated with the CLS token, linear + GELU), reassembled into maps at x4 / x2 (transposed
convs), x1 and x0.5 (stride-2 conv) of the patch grid, 3x3 convs to the fusion width, fused coarse to fine by
pre-activation residual conv units with bilinear 2x upsampling; a relative-depth head (3x3 conv, 2x upsampling, 3x3
conv + ReLU (the "outconv" features), 1x1 conv + ReLU: the relative depth, which this two-head model computes but
does not use); the metric head: a 1x1 conv on the coarsest neck map (the
bottleneck), a 4-layer post-norm patch transformer over its tokens plus a zero CLS token (1D sin-cos positions) whose
CLS output an MLP classifies into the two domains; the batch's summed domain logits pick ONE head (argmax, .item():
a data-dependent branch) - NYU (64 bins, 1e-3..10 m) or KITTI (64 bins, 1e-3..80 m); that head's seed bin regressor
(softplus bin centers) on the bottleneck, then four attractor layers, one per fused neck map, each predicting
attractor points (16, 8, 4, 1) from a projected embedding (plus the previous, bilinearly resized) that pull the
resized bin centers by inverse-attractor shifts dx / (1 + 300 dx^2) averaged over the attractors (a Python loop over
the attractors; this unnormed attractor uses inv_attractor's default 300 / 2, not the config's attractor_alpha /
gamma); a per-pixel MLP on the outconv features and the bin embedding predicts a probability and a
temperature, which give a log-binomial distribution over the 64 bins (softmax); depth = the sum of probabilities
times bin centers), after `Intel/zoedepth-nyu-kitti`, shrunk.

ZoeDepthForDepthEstimation with a BeitConfig backbone (load_backbone -> BeitBackbone with random weights, nothing
downloaded). Backbone (BEiT-L/16 at 384): hidden 1024 -> 96, 24 layers -> 4, heads 16 -> 6 (head size 64 -> 16),
intermediate 4096 -> 384, taps stage6/12/18/24 -> stage1/2/3/4 (every layer). Neck / heads: neck_hidden_sizes (256,
512, 1024, 1024) -> (24, 48, 96, 96), fusion_hidden_size and bottleneck_features 256 -> 64 (they must match),
patch transformer intermediate 1024 -> 256. Image 384 x 512 (ZoeDepthImageProcessor's size for a 4:3 photo) ->
192 x 256 (a 12 x 16 patch grid).
Kept: backbone image_size 384 (so the 24 x 24 relative-position tables are resized, as for every real input), patch
16, LayerScale 0.1, readout "project", reassemble factors (4, 2, 1, 0.5), num_relative_features 32, bin_embedding_dim
128, attractors (16, 8, 4, 1), alpha 1000 / gamma 2, "mean" attractors, softplus bin centers, temperatures
0.0212..50, both bin configurations, patch transformer 4 layers / hidden 128 / 4 heads (the model hard-codes 4 layers
and a 128-wide classifier).
Input: pixel_values (2, 3, 192, 256) (the processor normalizes with mean = std = 0.5, so in [-1, 1]).
Output: predicted_depth (2, 192, 256) (metric, positive). The neck and head convs are re-initialized (see
Model.__init__) so that the depth map is not (near) constant.
"""
import torch
from torch import nn
from transformers import BeitConfig, ZoeDepthConfig, ZoeDepthForDepthEstimation

batch_size = 2
height, width = 192, 256  # published (processor) 384 x 512


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ZoeDepthForDepthEstimation(config)
        # transformers initializes every conv and linear outside the backbone with N(0, initializer_range = 0.02) and
        # zero bias: through the neck and heads the signal shrinks to nothing, every softplus (bin centers, attractor
        # points) sits at softplus(0) = ln 2, and the depth map is ln 2 = 0.693147 everywhere to ~1e-7. Stand in for
        # trained weights: the neck's and heads' convs (and transposed convs) He-normal (fan_in, so that a conv + ReLU
        # keeps the signal's scale), their linears (readout projections, patch transformer, domain classifier)
        # PyTorch's default init, as the original ZoeDepth code leaves them; biases stay zero. The depth map then
        # varies over the image (about 0.7 +- 0.04 m for seed 0; the router picks the NYU head).
        for part in (self.model.neck, self.model.relative_head, self.model.metric_head):
            for module in part.modules():
                if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d)):
                    nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
                elif isinstance(module, nn.Linear):
                    module.reset_parameters()

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).predicted_depth


def get_inputs():
    return [torch.rand(batch_size, 3, height, width) * 2.0 - 1.0]


def get_init_inputs():
    # Intel/zoedepth-nyu-kitti config.json (ZoeD_NK). Kept: BEiT image_size 384, patch 16, gelu, qkv without key
    # bias, use_relative_position_bias (per layer, not shared), no absolute position embeddings, layer_scale 0.1,
    # layer_norm_eps 1e-12, dropouts 0, reshape_hidden_states False (the neck reshapes); ZoeDepth hidden_act gelu,
    # batch_norm_eps 1e-5, readout_type "project", head_in_index -1, no batch norm in the fusion residual units (with
    # bias), add_projection False, initializer_range 0.02.
    backbone_config = BeitConfig(
        image_size=384,
        patch_size=16,
        num_channels=3,
        hidden_size=96,  # published 1024
        num_hidden_layers=4,  # published 24
        num_attention_heads=6,  # published 16
        intermediate_size=384,  # published 4096
        hidden_act="gelu",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        layer_norm_eps=1e-12,
        use_mask_token=False,
        use_absolute_position_embeddings=False,
        use_relative_position_bias=True,
        use_shared_relative_position_bias=False,
        layer_scale_init_value=0.1,
        drop_path_rate=0.1,
        reshape_hidden_states=False,
        out_features=["stage1", "stage2", "stage3", "stage4"],  # published ["stage6", "stage12", "stage18", "stage24"]
    )
    return [ZoeDepthConfig(
        backbone_config=backbone_config,
        hidden_act="gelu",
        initializer_range=0.02,
        batch_norm_eps=1e-5,
        readout_type="project",
        reassemble_factors=[4, 2, 1, 0.5],
        neck_hidden_sizes=[24, 48, 96, 96],  # published [256, 512, 1024, 1024]
        fusion_hidden_size=64,  # published 256
        head_in_index=-1,
        use_batch_norm_in_fusion_residual=False,
        use_bias_in_fusion_residual=None,
        num_relative_features=32,
        add_projection=False,
        bottleneck_features=64,  # published 256
        num_attractors=[16, 8, 4, 1],
        bin_embedding_dim=128,
        attractor_alpha=1000,
        attractor_gamma=2,
        attractor_kind="mean",
        min_temp=0.0212,
        max_temp=50.0,
        bin_centers_type="softplus",
        bin_configurations=[
            {"name": "nyu", "n_bins": 64, "min_depth": 1e-3, "max_depth": 10.0},
            {"name": "kitti", "n_bins": 64, "min_depth": 1e-3, "max_depth": 80.0},
        ],
        num_patch_transformer_layers=4,
        patch_transformer_hidden_size=128,
        patch_transformer_intermediate_size=256,  # published 1024
        patch_transformer_num_attention_heads=4,
    )]
