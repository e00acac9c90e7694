"""GroupViT image-text model (Xu et al., CVPR 2022, "GroupViT: Semantic Segmentation Emerges from Text
Supervision"): a CLIP-style dual encoder whose vision tower groups patches bottom-up instead of keeping a fixed token
grid. The image is cut into patches (learned position embeddings, no CLS); each stage concatenates learnable group
tokens to the image tokens and runs pre-LN transformer layers on both, then a grouping block: the group tokens are
normalised, mixed into num_output_groups tokens by a token-mixing MLP (an MLP along the group axis), cross-attend to
the image tokens, and every image token is hard-assigned to one group (softmax over the groups, straight-through
argmax one-hot in eval; the training Gumbel noise is off), each group being the assignment-weighted mean of its
tokens (plus assign_eps in the denominator) plus the projected group token, followed by an MLP. The stage's output
groups are the next stage's image tokens (196 patches -> 64 -> 8 groups). The final 8 groups are averaged and
projected (Linear-BN-ReLU-Linear projection heads). The text tower is the CLIP causal transformer pooled at the first
eos token. With output_segmentation the model also runs the zero-shot segmentation path: the per-stage soft
assignment maps are chained (matrix products of the (patch x group) maps), bilinearly resized to the image size and
combined with the per-group text similarities into per-text segmentation logits. After `nvidia/groupvit-gcc-yfcc`,
shrunk.

GroupViTModel (eager attention), called with output_segmentation=True; the output is the tuple (logits_per_image
(2, 2), segmentation_logits (2, 2, 64, 64)).
Shrunk: vision hidden 384 -> 64, depths (6, 3, 3) -> (2, 1, 1), group tokens (64, 8, 0) -> (16, 4, 0), output
groups (64, 8, 8) -> (16, 4, 4), 6 heads -> 4, intermediate 1536 -> 256, image 224 -> 64 (patch 16 -> 8: 64
patches); text hidden 256 -> 64, 12 layers -> 2, intermediate 1024 -> 256, vocab 49408 -> 1000, 77 positions -> 16;
projection 256 -> 64, projection intermediate 4096 -> 256.
The group tokens and patch position embeddings, left at zero by the library init, are drawn N(0, 0.02^2) truncated,
and the assignment attention's q / k projections get a 1 / sqrt(fan_in) normal init (the 0.02 init makes the
assignment logits ~1e-3, so the hard argmax would sit on near-ties).
Kept: three grouping stages with the last having no new group tokens, assign_mlp_ratio (0.5, 4), assign_eps 1,
hard assignment, gelu (vision) / quick_gelu (text), layer_norm_eps 1e-5, logit_scale init 2.6592.
Inputs: pixel_values (2, 3, 64, 64) (CLIP-normalised); input_ids (2, 16) with bos 998 and an eos 999 closing each
caption, the second caption right-padded by 6 tokens (pad 1), and attention_mask.
"""
import torch
from torch import nn
from transformers import GroupViTConfig, GroupViTModel, GroupViTTextConfig, GroupViTVisionConfig

batch_size = 2
image_size = 64
seq_len = 16
vocab_size = 1000
pad_token_id = 1
bos_token_id = 998
eos_token_id = 999


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GroupViTModel(config)
        # GroupViTPreTrainedModel leaves the group tokens and the patch position embeddings at zero (the checkpoint
        # fills them); identical group tokens would make every group identical and the hard assignment a tie.
        # Draw them as the original code initialises them (trunc_normal, std 0.02).
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for name, p in self.model.named_parameters():
                if name.endswith(("group_token", "embeddings.position_embeddings")):
                    p.copy_(torch.randn(p.shape, generator=gen).clamp_(-2, 2) * 0.02)
                elif name.endswith(("assign.q_proj.weight", "assign.k_proj.weight")):
                    # unit-variance assignment logits (the 0.02 init gives logits ~1e-3, all groups near-tied)
                    p.copy_(torch.randn(p.shape, generator=gen) * p.shape[1] ** -0.5)

    def forward(self, pixel_values, input_ids, attention_mask):
        out = self.model(
            input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask, output_segmentation=True
        )
        return out.logits_per_image, out.segmentation_logits


def get_inputs():
    mean = torch.tensor([0.48145466, 0.4578275, 0.40821073]).view(1, 3, 1, 1)
    std = torch.tensor([0.26862954, 0.26130258, 0.27577711]).view(1, 3, 1, 1)
    pixel_values = (torch.rand(batch_size, 3, image_size, image_size) - mean) / std
    input_ids = torch.randint(2, bos_token_id, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    input_ids[:, -1] = eos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[-1, -7] = eos_token_id  # the last caption is 10 tokens long, then right-padded
    input_ids[-1, -6:] = pad_token_id
    attention_mask[-1, -6:] = 0
    return [pixel_values, input_ids, attention_mask]


def get_init_inputs():
    # nvidia/groupvit-gcc-yfcc config.json. Kept: assign_mlp_ratio (0.5, 4), assign_eps 1.0, gelu / quick_gelu,
    # layer_norm_eps 1e-5, logit_scale_init_value 2.6592, three grouping stages with no new group tokens in the last.
    vision_config = GroupViTVisionConfig(
        hidden_size=64,  # published 384
        intermediate_size=256,  # published 1536
        num_hidden_layers=4,  # published 12 (= sum(depths))
        depths=[2, 1, 1],  # published [6, 3, 3]
        num_group_tokens=[16, 4, 0],  # published [64, 8, 0]
        num_output_groups=[16, 4, 4],  # published [64, 8, 8]
        num_attention_heads=4,  # published 6
        image_size=image_size,  # published 224
        patch_size=8,  # published 16
    )
    text_config = GroupViTTextConfig(
        vocab_size=vocab_size,  # published 49408
        hidden_size=64,  # published 256
        intermediate_size=256,  # published 1024
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,
        max_position_embeddings=seq_len,  # published 77
        pad_token_id=pad_token_id,
        bos_token_id=bos_token_id,  # published 49406
        eos_token_id=eos_token_id,  # published 49407
    )
    return [GroupViTConfig(
        text_config=text_config.to_dict(),
        vision_config=vision_config.to_dict(),
        projection_dim=64,  # published 256
        projection_intermediate_dim=256,  # published 4096
    )]
