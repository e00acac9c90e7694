"""ViTMatte image matting (plain ViTDet backbone on the 4-channel RGB + trimap input: 16 x 16 patch-embedding conv,
absolute position embeddings learned at the 224-pixel pretraining grid (14 x 14) and bicubically interpolated to the
input's patch grid, then pre-norm ViT blocks of two kinds: windowed blocks (the token grid zero-padded to a multiple
of the window and split into 14 x 14 windows, attention within each window) and global blocks (attention over the
whole grid), both adding decomposed relative position biases (per-axis tables of query-key offsets, einsum'd with
the queries and added to the logits); each global block is followed by a residual conv bottleneck (1x1, 3x3, 1x1
convs with channel LayerNorms and GELU); the detail-capture decoder: a ConvStream of stride-2 3x3 conv + BN + ReLU
layers on the raw 4-channel input (strides 2, 4, 8), then fusion blocks that upsample the features 2x (bilinear),
concatenate the ConvStream map of the same stride (and finally the input itself) and apply 3x3 conv + BN + ReLU, and a
matting head (3x3 conv, BN, ReLU, 1x1 conv, sigmoid) giving the alpha matte at full resolution), after
`hustvl/vitmatte-small-composition-1k` (ViT-S backbone), shrunk.

VitMatteForImageMatting with a VitDetBackbone built from `backbone_config` (random weights, nothing downloaded).
Backbone: hidden 384 -> 96 (6 heads kept: head size 64 -> 16), 12 layers -> 3, keeping one period of the published
pattern "window, window, global + residual block" (window_block_indices (0, 1, 3, 4, 6, 7, 9, 10) -> (0, 1),
residual_block_indices (2, 5, 8, 11) -> (2,)), image_size 512 -> 448 (sizes the global blocks' relative-position
tables, here 2 * 28 - 1 offsets per axis; inputs of another size interpolate them). Decoder: convstream_hidden_sizes
(48, 96, 192) -> (24, 48, 96), fusion_hidden_sizes (256, 128, 64, 32) -> (128, 64, 32, 16).
Kept: patch 16, window 14, pretrain_image_size 224, mlp_ratio 4, qkv bias, relative position embeddings, absolute
position embeddings, layer_norm_eps 1e-6, 4 input channels, the matting head's 16 middle channels.
Input: pixel_values (2, 4, 448, 448), as VitMatteImageProcessor builds it: RGB rescaled to [0, 1] and normalized with
mean = std = 0.5 (so in [-1, 1]), concatenated with the trimap rescaled to [0, 1] (1 = foreground, 128 / 255 =
unknown, 0 = background; here an elliptical foreground with an unknown band around it, a different one per image),
sized to a multiple of 32 (a 28 x 28 patch grid: 2 x 2 windows of 14).
Output: alphas (2, 1, 448, 448) in [0, 1]. The decoder's convs and BatchNorms and the residual blocks' last norms
are re-initialized (see Model.__init__) so that no path is (near) zeroed out.
"""
import torch
from torch import nn
from transformers import VitDetConfig, VitMatteConfig, VitMatteForImageMatting

batch_size = 2
image_size = 448  # published config 512 (inference at any multiple of 32)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VitMatteForImageMatting(config)
        # transformers initializes the decoder's convs with N(0, 0.02) and its BatchNorm weights with N(0, 0.02): each
        # ConvStream / fusion / head layer scales the signal down and the alphas come out 0.5 +- 2e-4 everywhere; it
        # also zeroes the last channel LayerNorm of every residual bottleneck block (as detectron2's ViTDet does,
        # making the block an identity at init). Stand in for trained weights: decoder convs He-normal (fan_in, so
        # that a conv + BN + ReLU keeps the signal's scale), BatchNorm weight 1 / bias 0 (PyTorch's default, which
        # the original ViTMatte code keeps) and those LayerNorms weight 1.
        for module in self.model.decoder.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
        for layer in self.model.backbone.encoder.layer:
            if getattr(layer, "use_residual_block", False):
                nn.init.ones_(layer.residual.norm3.weight)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).alphas


def get_inputs():
    rgb = torch.rand(batch_size, 3, image_size, image_size) * 2.0 - 1.0
    ys, xs = torch.meshgrid(
        torch.linspace(0.0, 1.0, image_size), torch.linspace(0.0, 1.0, image_size), indexing="ij"
    )
    trimaps = []
    for cy, cx, ry, rx in [(0.5, 0.45, 0.3, 0.2), (0.55, 0.6, 0.25, 0.3)]:
        r = ((ys - cy) / ry) ** 2 + ((xs - cx) / rx) ** 2
        trimap = torch.zeros(image_size, image_size)
        trimap[r < 1.5] = 128 / 255  # unknown band
        trimap[r < 0.7] = 1.0  # foreground
        trimaps.append(trimap)
    trimap = torch.stack(trimaps)[:, None]
    return [torch.cat([rgb, trimap], dim=1)]


def get_init_inputs():
    # hustvl/vitmatte-small-composition-1k config.json. Kept: VitDet patch 16, window 14, pretrain_image_size 224,
    # 4 channels, mlp_ratio 4, gelu, qkv_bias, use_absolute_position_embeddings, use_relative_position_embeddings,
    # drop_path_rate 0, dropout 0, layer_norm_eps 1e-6, initializer_range 0.02, out_features the last stage;
    # ViTMatte batch_norm_eps 1e-5, initializer_range 0.02.
    backbone_config = VitDetConfig(
        num_channels=4,
        hidden_size=96,  # published 384
        num_hidden_layers=3,  # published 12
        num_attention_heads=6,
        mlp_ratio=4,
        hidden_act="gelu",
        dropout_prob=0.0,
        drop_path_rate=0.0,
        layer_norm_eps=1e-6,
        image_size=image_size,  # published 512
        pretrain_image_size=224,
        patch_size=16,
        qkv_bias=True,
        window_block_indices=[0, 1],  # published [0, 1, 3, 4, 6, 7, 9, 10]
        residual_block_indices=[2],  # published [2, 5, 8, 11]
        use_absolute_position_embeddings=True,
        use_relative_position_embeddings=True,
        window_size=14,
        out_features=["stage3"],  # published ["stage12"]
    )
    return [VitMatteConfig(
        backbone_config=backbone_config,
        hidden_size=96,  # published 384
        batch_norm_eps=1e-5,
        convstream_hidden_sizes=[24, 48, 96],  # published [48, 96, 192]
        fusion_hidden_sizes=[128, 64, 32, 16],  # published [256, 128, 64, 32]
    )]
