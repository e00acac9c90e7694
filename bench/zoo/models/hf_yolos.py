"""YOLOS object detector ("You Only Look at One Sequence": a plain DeiT-style ViT used as the whole detector: 16 x 16
patch embedding, a CLS token in front and 100 learned detection tokens appended behind the patch tokens, learned
position embeddings for all of them whose patch part is bicubically interpolated from the pretraining grid to the
input's patch grid at every forward; "mid" position embeddings (one more learned set per layer but the last, also
interpolated) added to the hidden states after each of those layers; pre-norm encoder layers with a GELU MLP, final
LayerNorm; the final states of the detection tokens go through a 3-layer MLP class head (with a no-object class) and
a 3-layer MLP box head + sigmoid), after `hustvl/yolos-small`, shrunk.

YolosForObjectDetection (its encoder has no pooler).
Shrunk: hidden 384 -> 96, 12 layers -> 2 (mid position embeddings 11 sets -> 1), 6 heads kept (head size 64 -> 16),
intermediate 1536 -> 384, pretraining position grid image_size (512, 864) (32 x 54 patches) -> (128, 224) (8 x 14).
Kept: patch 16, 100 detection tokens, 91 COCO label slots (+ no-object), qkv bias, gelu, layer_norm_eps 1e-12.
Input: pixel_values (2, 3, 192, 256): a 12 x 16 patch grid, so both position-embedding sets are interpolated from
8 x 14 (as the published model runs at the processor's 800-pixel shortest edge, not at 512 x 864; sequence 1 + 192 +
100 = 293 tokens). The second image is 192 x 192 and was zero-padded at its right border to the batch size, as
YolosImageProcessor pads (YOLOS takes no pixel mask).
Output: (logits (2, 100, 92), pred_boxes (2, 100, 4) (normalized cx, cy, w, h)). The tokens, the position
embeddings and the heads are re-initialized as the original YOLOS code initializes them (see Model.__init__).
"""
import torch
from torch import nn
from transformers import YolosConfig, YolosForObjectDetection

batch_size = 2
height, width = 192, 256
padded_width = 64  # the second image is 192 x 192


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = YolosForObjectDetection(config)
        # transformers leaves the CLS token, the detection tokens and both position-embedding sets at their zero
        # construction values (YOLOS has no _init_weights of its own for them): the 100 detection tokens are then the
        # same token, and the model predicts one box 100 times. Initialize them as the original YOLOS code does
        # (truncated N(0, 0.02)), and leave the two MLP heads at PyTorch's default initialization, as the original
        # code leaves them (transformers' N(0, 0.02) makes every box (0.5, 0.5, 0.5, 0.5) to 1e-3).
        embeddings = self.model.vit.embeddings
        nn.init.trunc_normal_(embeddings.cls_token, std=0.02)
        nn.init.trunc_normal_(embeddings.detection_tokens, std=0.02)
        nn.init.trunc_normal_(embeddings.position_embeddings, std=0.02)
        nn.init.trunc_normal_(self.model.vit.encoder.interpolation.mid_position_embeddings, std=0.02)
        for head in (self.model.class_labels_classifier, self.model.bbox_predictor):
            for layer in head.layers:
                layer.reset_parameters()

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.logits, out.pred_boxes


def get_inputs():
    pixel_values = torch.randn(batch_size, 3, height, width)
    pixel_values[1, :, :, -padded_width:] = 0.0
    return [pixel_values]


def get_init_inputs():
    # hustvl/yolos-small config.json. Kept: patch_size 16, 100 detection tokens, use_mid_position_embeddings True,
    # 91 labels, gelu, qkv_bias, layer_norm_eps 1e-12, hidden / attention dropout 0, initializer_range 0.02,
    # auxiliary_loss False.
    return [YolosConfig(
        hidden_size=96,  # published 384
        num_hidden_layers=2,  # published 12
        num_attention_heads=6,
        intermediate_size=384,  # published 1536
        hidden_act="gelu",
        layer_norm_eps=1e-12,
        image_size=[128, 224],  # published [512, 864]
        patch_size=16,
        qkv_bias=True,
        num_detection_tokens=100,
        use_mid_position_embeddings=True,
        num_labels=91,
    )]
