"""MobileViT image classification (3x3 stride-2 conv stem; MobileNetV2 inverted-residual stages (1x1 expand, 3x3
depthwise, 1x1 project, BatchNorm + SiLU); three MobileViT blocks, each: a strided inverted residual, a local 3x3 conv
and 1x1 projection to the transformer width, unfold of the feature map into 2 x 2 patches (the pixels at the same
position in every patch form one sequence), pre-norm transformer layers attending across patches, fold back, 1x1
projection and a 3x3 conv fusing it with the block input; 1x1 expansion conv, global average pool, linear
classifier), after `apple/mobilevit-small`, shrunk.

MobileViTForImageClassification, 1000 ImageNet classes as published. The transformer depths (2, 4, 3) and the
inverted-residual counts are fixed in the model code, so only the widths shrink.
Shrunk: hidden_sizes (144, 192, 240) -> (48, 64, 80) (4 heads kept: head sizes 12 / 16 / 20), neck_hidden_sizes
(16, 32, 64, 96, 128, 160, 640) -> (16, 16, 32, 48, 64, 80, 320), image 256 x 256 -> 128 x 128. The MobileViT blocks
run at 16 x 16, 8 x 8 and 4 x 4 (output_stride 32), all multiples of patch_size 2, so the unfold needs no
interpolation; the last block attends over 4 patches (at 64 x 64 it would see a single 2 x 2 patch).
Input: pixel_values (2, 3, 128, 128) (MobileViT's processor scales to [0, 1] and flips RGB -> BGR, no mean / std).
Output: logits (2, 1000). BatchNorm and conv weights are re-initialized (see Model.__init__) so that the
random-weight activations do not vanish (~1e-40 logits with the transformers init).
"""
import torch
from torch import nn
from transformers import MobileViTConfig, MobileViTForImageClassification

batch_size = 2
image_size = 128


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MobileViTForImageClassification(config)
        # transformers initializes every BatchNorm's weight with N(0, 0.02) (and every conv with N(0, 0.02)), so
        # with the fresh running statistics of eval mode each conv + BN scales the signal down ~50x and the logits
        # come out ~1e-40. Stand in for trained weights with the original (apple/ml-cvnets) init instead: BatchNorm
        # weight 1 / bias 0, convs He-normal (fan_out); the linears keep their N(0, 0.02).
        for module in self.model.modules():
            if isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
                if module.bias is not None:
                    nn.init.zeros_(module.bias)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    # apple/mobilevit-small config.json. Kept: patch_size 2, 4 attention heads, mlp_ratio 2.0, expand_ratio 4.0,
    # silu, conv_kernel_size 3, output_stride 32, qkv_bias, layer_norm_eps 1e-5, initializer_range 0.02, dropouts
    # (hidden 0.1, attention 0.0, classifier 0.1; inactive in eval), 1000 labels.
    return [MobileViTConfig(
        num_channels=3,
        image_size=image_size,  # published 256
        patch_size=2,
        hidden_sizes=[48, 64, 80],  # published [144, 192, 240]
        neck_hidden_sizes=[16, 16, 32, 48, 64, 80, 320],  # published [16, 32, 64, 96, 128, 160, 640]
        num_attention_heads=4,
        mlp_ratio=2.0,
        expand_ratio=4.0,
        hidden_act="silu",
        conv_kernel_size=3,
        output_stride=32,
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.0,
        classifier_dropout_prob=0.1,
        initializer_range=0.02,
        layer_norm_eps=1e-5,
        qkv_bias=True,
        num_labels=1000,
    )]
