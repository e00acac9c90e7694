"""OneFormer universal (semantic / instance / panoptic) segmentation, task-conditioned (SHI Labs: one model for all
three tasks; the task is a text prompt, "the task is {semantic|instance|panoptic}", tokenized to 77 CLIP ids that
an MLP maps to a task token, the raw ids, as floats, being its input), after `shi-labs/oneformer_ade20k_swin_tiny`,
shrunk. Swin backbone (shifted-window attention, 4 stages); pixel decoder: a multi-scale deformable-attention
transformer encoder over the stride 8 / 16 / 32 features (sampling offsets and attention weights predicted per
query, bilinear grid_sample) plus an FPN to the stride-4 mask features (GroupNorm); transformer decoder: a small
query transformer whose queries all start as the (LayerNormed) task token, with learned positions, and cross-attend
to the stride-4 map (its sine position code plus the projected mask features); the task token is appended to its
outputs as one more query; then masked-attention layers (each query's cross-attention restricted to the foreground
of its previous mask prediction, cycling over the three scales), self-attention and FFN; mask logits are query
embeddings dotted with the stride-4 mask features.

OneFormerForUniversalSegmentation; output (class_queries_logits (2, 32, 151), masks_queries_logits
(2, 32, 32, 32)). The contrastive text branch is built and run only in training (config.is_training False, as
in inference), so it is not part of the model.
Shrunk: 512 x 512 ADE20k crops -> 128 x 128; Swin-T embed_dim 96 -> 32, depths (2, 2, 6, 2) -> (1, 1, 2, 1),
heads (3, 6, 12, 24) -> (1, 2, 4, 8) (head_dim 32 kept); hidden / conv / mask dims 256 -> 64, pixel-decoder
encoder 6 layers -> 2 (feed-forward 1024 -> 128), decoder_layers 10 -> 3, query_dec_layers 2 -> 1, heads 8 -> 4,
dim_feedforward 2048 -> 128, 150 queries -> 32 (31 object queries + the task token). Kept: window 7 (so the
stride-4 map, 32 x 32, is padded to windows of 7), strides (4, 8, 16, 32), 150 ADE20k classes (+ no-object),
task_seq_len 77, GroupNorm, post-norm decoder, common_stride 4.
Inputs: ImageNet-normalised images (2, 3, 128, 128) (the second image 96 x 112, zero-padded at the bottom-right
as OneFormerImageProcessor pads a batch; the processor's pixel_mask is left out: OneFormer never reads it),
task_inputs (2, 77): CLIP ids of "the task is semantic" / "... panoptic" (bos 49406, four word ids, eos 49407, then
padding, 0 here; the word ids are stand-ins, the second sample's last word differs).
"""
import torch
from torch import nn
from transformers import OneFormerConfig, OneFormerForUniversalSegmentation, SwinConfig

batch_size = 2
image_size = 128
task_seq_len = 77


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = OneFormerForUniversalSegmentation(config)

    def forward(self, pixel_values, task_inputs):
        out = self.model(pixel_values=pixel_values, task_inputs=task_inputs)
        return out.class_queries_logits, out.masks_queries_logits


def get_inputs():
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    pixel_values = (torch.rand(batch_size, 3, image_size, image_size) - mean) / std
    pixel_values[1, :, 96:, :] = 0  # second image 96 x 112, padded
    pixel_values[1, :, :, 112:] = 0
    # "the task is semantic" / "the task is panoptic": bos 49406, the words, eos 49407, then padding
    words = torch.randint(300, 49000, (4,))
    task_inputs = torch.zeros(batch_size, task_seq_len, dtype=torch.long)
    for i in range(batch_size):
        task_inputs[i, :6] = torch.cat([torch.tensor([49406]), words, torch.tensor([49407])])
    task_inputs[1, 4] = words[3] + 7  # the last word differs
    return [pixel_values, task_inputs]


def get_init_inputs():
    # shi-labs/oneformer_ade20k_swin_tiny (the OneFormerConfig defaults, a Swin-T backbone). Kept: Swin patch 4,
    # window 7, mlp_ratio 4, out_features stage1..4; 150 labels, strides (4, 8, 16, 32), task_seq_len 77,
    # GN norm, no pre-norm, common_stride 4, layer_norm_eps 1e-5.
    backbone_config = SwinConfig(
        image_size=image_size,  # published 224 (pretraining)
        embed_dim=32,  # published 96
        depths=[1, 1, 2, 1],  # published [2, 2, 6, 2]
        num_heads=[1, 2, 4, 8],  # published [3, 6, 12, 24]
        window_size=7,
        drop_path_rate=0.3,
        out_features=["stage1", "stage2", "stage3", "stage4"],
    )
    return [OneFormerConfig(
        backbone_config=backbone_config,
        num_labels=150,
        num_queries=32,  # published 150
        hidden_dim=64,  # published 256
        conv_dim=64,  # published 256
        mask_dim=64,  # published 256
        encoder_feedforward_dim=128,  # published 1024
        encoder_layers=2,  # published 6
        decoder_layers=3,  # published 10
        query_dec_layers=1,  # published 2
        num_attention_heads=4,  # published 8
        dim_feedforward=128,  # published 2048
    )]
