"""D-FINE real-time detector (HGNetV2 backbone: stem of a strided 3x3 conv, then a two-2x2-conv branch and a 2x2
max-pool branch concatenated, a strided 3x3 and a 1x1 conv; stages of HG blocks (a chain of 3x3 convs or, in the light
blocks of stages 3-4, 1x1 + 5x5 depthwise conv pairs, whose input and outputs are all concatenated and aggregated by
1x1 squeeze / excitation convs; residual from a stage's second block on), depthwise strided 3x3 downsampling between
stages, learnable affine blocks (a scalar scale + bias after each activation), frozen BatchNorm;
hybrid encoder: 1x1 conv + BN projections of the stride 8 / 16 / 32 maps, one AIFI transformer layer (self-attention
with 2D sin-cos position embedding) on the stride-32 map only, then a top-down FPN and a bottom-up PAN whose fusion
blocks are RepNCSPELAN4 (GELAN-style split / CSP-RepVGG branches / concat) and whose downsampling is SCDown (1x1 conv
+ depthwise strided 3x3 conv); query selection: an encoder head scores every token of the three levels (anchors
generated for the input size, border anchors masked) and the top-k tokens become the decoder queries and initial
boxes; decoder layers: self-attention with a box-MLP query position embedding, D-FINE's deformable cross-attention
(a different number of sampling points per level (3, 6, 3), offsets scaled by the reference box size) merged into
the residual by a learned sigmoid gate, an FFN; Fine-grained Distribution Refinement: a pre-box head gives initial
boxes after the first layer, then every layer's box head predicts, per box edge, logits over 33 bins that are added
to the previous layer's, softmaxed and integrated against a non-uniform weighting function W(n) into edge
distances, decoded around the initial box (distance2bbox); the location-quality estimator adds an MLP of each
edge's top-4 bin probabilities (and their mean) to the class logits), after `ustc-community/dfine-small-coco`
(D-FINE-S), shrunk. The deformable attention runs in its pure-PyTorch path (grid_sample per level).

DFineForObjectDetection, 80 COCO classes as published. The backbone is built from its config with random weights
(AutoBackbone.from_config -> HGNetV2Backbone, nothing downloaded).
Shrunk: encoder_hidden_dim 256 -> 128 (so decoder_in_channels (256, 256, 256) -> (128, 128, 128)), encoder_ffn_dim
1024 -> 256, d_model 256 -> 128 (8 heads kept, head size 32 -> 16), decoder_ffn_dim 1024 -> 256, num_queries 300 ->
100, image 640 x 640 -> 256 x 256 (levels 32 x 32, 16 x 16 and 8 x 8: 1344 tokens instead of 8400). Kept: the whole
HGNetV2-B0 backbone (already D-FINE's smallest), depth_mult 0.34 (one RepVGG block per CSP branch), hidden_expansion
0.5, 3 decoder layers, decoder_n_points (3, 6, 3), max_num_bins 32, reg_scale 4, up 0.5, top_prob_values 4, LQE
hidden 64 / 2 layers, decoder_offset_scale 0.5, eval_idx -1, layer_scale 1.
Input: pixel_values (2, 3, 256, 256) (D-FINE's processor only rescales to [0, 1], no mean / std, and resizes to a
fixed square without padding, so no pixel_mask).
Output: (logits (2, 100, 80) (per-class logits, scored with a sigmoid), pred_boxes (2, 100, 4) (normalized cx, cy,
w, h)). The weights are re-initialized (see Model.__init__) so that the random-weight activations do not vanish and
no path is zeroed out.
"""
import math

import torch
from torch import nn
from transformers import DFineConfig, DFineForObjectDetection, HGNetV2Config

batch_size = 2
image_size = 256  # published 640


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DFineForObjectDetection(config)
        # transformers initializes every conv and linear with N(0, initializer_range) (0.02 in the backbone, 0.01
        # elsewhere): with the (frozen or eval-mode) BatchNorm statistics at mean 0 / var 1, each conv + BN scales the
        # signal down ~10x and the backbone's stride-32 map comes out ~1e-14; D-FINE's init also zeroes the
        # sampling-offset and attention-weight projections (a fixed sampling grid and uniform weights whatever the
        # query), the gates' weights (a constant 0.5 / 0.5 mix), the last layer of every box-distribution head
        # (uniform bins: no refinement at all) and of every LQE MLP. Stand in for trained weights: every conv
        # He-normal (fan_in, so that a conv + BN + ReLU keeps the signal's scale), the encoder / decoder BatchNorms
        # weight 1 / bias 0 (the frozen backbone ones are already), linears PyTorch's default weight init; every bias
        # keeps its value (zeros, the class heads' prior-probability bias, the sampling grid).
        for module in self.model.modules():
            if isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
            elif isinstance(module, nn.Linear):
                nn.init.kaiming_uniform_(module.weight, a=math.sqrt(5))

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.logits, out.pred_boxes


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # ustc-community/dfine-small-coco config.json. Kept: HGNetV2-B0 (stem 3 -> 16 -> 16, stages in (16, 64, 256,
    # 512), mid (16, 32, 64, 128), out (64, 256, 512, 1024), blocks (1, 1, 2, 1), 3 layers per block, kernels
    # (3, 3, 5, 5), light blocks in stages 3-4, learnable affine blocks, relu, out_features stage2-4 at strides
    # 8 / 16 / 32), frozen backbone BatchNorms, 1 AIFI encoder layer on the last level (encode_proj_layers [2]),
    # gelu encoder / silu CCFM / relu decoder activations, positional temperature 10000, post-norm, 8 heads, 3
    # feature levels, box refinement, no learned initial query, anchor_image_size / eval_size null (anchors and
    # position embeddings computed for the input size), num_denoising 100 (training only), dropouts 0,
    # layer_norm_eps / batch_norm_eps 1e-5, initializer_range 0.01, decoder_method "default".
    backbone_config = HGNetV2Config(
        num_channels=3,
        embedding_size=16,
        hidden_sizes=[64, 256, 512, 1024],
        depths=[1, 1, 2, 1],
        hidden_act="relu",
        stem_channels=[3, 16, 16],
        stage_in_channels=[16, 64, 256, 512],
        stage_mid_channels=[16, 32, 64, 128],
        stage_out_channels=[64, 256, 512, 1024],
        stage_num_blocks=[1, 1, 2, 1],
        stage_downsample=[False, True, True, True],
        stage_light_block=[False, False, True, True],
        stage_kernel_size=[3, 3, 5, 5],
        stage_numb_of_layers=[3, 3, 3, 3],
        use_learnable_affine_block=True,
        out_features=["stage2", "stage3", "stage4"],
    )
    return [DFineConfig(
        backbone_config=backbone_config,
        freeze_backbone_batch_norms=True,
        initializer_range=0.01,
        layer_norm_eps=1e-5,
        batch_norm_eps=1e-5,
        encoder_hidden_dim=128,  # published 256
        encoder_in_channels=[256, 512, 1024],
        feat_strides=[8, 16, 32],
        encoder_layers=1,
        encoder_ffn_dim=256,  # published 1024
        encoder_attention_heads=8,
        dropout=0.0,
        activation_dropout=0.0,
        encode_proj_layers=[2],
        positional_encoding_temperature=10000,
        encoder_activation_function="gelu",
        activation_function="silu",
        eval_size=None,
        normalize_before=False,
        hidden_expansion=0.5,
        depth_mult=0.34,
        d_model=128,  # published 256
        num_queries=100,  # published 300
        decoder_in_channels=[128, 128, 128],  # published [256, 256, 256]
        decoder_ffn_dim=256,  # published 1024
        num_feature_levels=3,
        decoder_n_points=[3, 6, 3],
        decoder_layers=3,
        decoder_attention_heads=8,
        decoder_activation_function="relu",
        attention_dropout=0.0,
        num_denoising=100,
        label_noise_ratio=0.5,
        box_noise_scale=1.0,
        learn_initial_query=False,
        anchor_image_size=None,
        with_box_refine=True,
        eval_idx=-1,
        layer_scale=1.0,
        max_num_bins=32,
        reg_scale=4.0,
        up=0.5,
        top_prob_values=4,
        lqe_hidden_dim=64,
        lqe_layers=2,
        decoder_offset_scale=0.5,
        decoder_method="default",
        num_labels=80,
    )]
