"""Token Merging (ToMe) (Bolya, Fu, Dai, Zhang, Feichtenhofer & Hoffman, ICLR 2023, "Token Merging: Your ViT But
Faster"), plain-torch reference of a DeiT-style ViT patched with ToMe the way the authors' facebookresearch/ToMe code
patches timm (tome/merge.py `bipartite_soft_matching` + `merge_wavg`, tome/patch/timm.py ToMeBlock / ToMeAttention).

Inside every block, between the attention and the MLP, r tokens are merged away, so the sequence shrinks layer after
layer (here 65 -> 57 -> 49 -> 41 -> 33 tokens; training-free, data-dependent):
  1. attention is PROPORTIONAL attention: each token carries a size s (how many patches it stands for, 1 at the
     start) and log(s) is added to the attention logits of its key column, so a merged token is attended to as
     often as the patches it replaced; the attention also returns its keys averaged over the heads as the
     similarity metric;
  2. bipartite soft matching: the metric is L2-normalised, the tokens are split alternately into sets A (even
     positions) and B (odd positions), cosine similarities A x B are computed, the class token (in A) is protected
     with -inf, each A token finds its most similar B token (max / argmax), the A tokens are sorted by that best
     similarity (argsort, descending) and the top r of them are "src" tokens merged into their best B partner, the
     rest ("unm") are kept;
  3. merge: weighted average by size: x * s and s are gathered / scatter_reduce(sum)-ed from the src tokens into
     their B partners, then x is divided by the new sizes. The output order is the reference's: the unmerged A
     tokens re-sorted by their original index (so the class token stays first), then all B tokens in order.
ViT (DeiT layout, timm VisionTransformer): patch-embedding conv, class token, learned position embeddings, pre-LN
blocks x <- x + Attn(LN(x)); merge; x <- x + MLP(LN(x)) (GELU), final LayerNorm, class-token head.
Sizes: 64 x 64 images, patch 8 (64 patches + class token), width 96, 3 heads of 32, MLP 384, 4 blocks, r = 8 per
block (the paper's DeiT-S setting is r = 13 over 12 blocks of 197 tokens), 100 classes. Inits as timm's ViT:
trunc-normal(0.02) Linear weights, zero biases, position embeddings and class token N(0, 0.02^2) (trunc).
Input: images (2, 3, 64, 64), normalised. Output: logits (2, 100).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
image_size = 64
patch_size = 8
embed_dim = 96
num_heads = 3
mlp_ratio = 4
depth = 4
merge_r = 8
num_classes = 100


def bipartite_soft_matching(metric, r, class_token=True):
    """metric: (B, N, C). Returns merge(x, mode) that removes r tokens (tome/merge.py)."""
    t = metric.shape[1]
    r = min(r, (t - int(class_token)) // 2)
    if r <= 0:
        return lambda x, mode="mean": x

    with torch.no_grad():
        metric = metric / metric.norm(dim=-1, keepdim=True)
        a, b = metric[..., ::2, :], metric[..., 1::2, :]
        scores = a @ b.transpose(-1, -2)  # (B, Na, Nb) cosine similarities

        if class_token:
            scores[..., 0, :] = -math.inf  # the class token is never merged

        node_max, node_idx = scores.max(dim=-1)  # best B partner of every A token
        edge_idx = node_max.argsort(dim=-1, descending=True)[..., None]

        unm_idx = edge_idx[..., r:, :]  # unmerged A tokens
        src_idx = edge_idx[..., :r, :]  # merged A tokens
        dst_idx = node_idx[..., None].gather(dim=-2, index=src_idx)

        if class_token:
            unm_idx = unm_idx.sort(dim=1)[0]  # keep the class token first

    def merge(x, mode="mean"):
        src, dst = x[..., ::2, :], x[..., 1::2, :]
        n, t1, c = src.shape
        unm = src.gather(dim=-2, index=unm_idx.expand(n, t1 - r, c))
        src = src.gather(dim=-2, index=src_idx.expand(n, r, c))
        dst = dst.scatter_reduce(-2, dst_idx.expand(n, r, c), src, reduce=mode)
        return torch.cat([unm, dst], dim=1)

    return merge


def merge_wavg(merge, x, size):
    """Size-weighted average merge (tome/merge.py). x: (B, N, C), size: (B, N, 1)."""
    x = merge(x * size, mode="sum")
    size = merge(size, mode="sum")
    return x / size, size


class ToMeAttention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, size):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # (B, H, N, D)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        # proportional attention: a merged token of size s counts as s keys
        attn = attn + size.log()[:, None, None, :, 0]
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        return x, k.mean(dim=1)  # keys averaged over heads: the similarity metric


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class ToMeBlock(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = ToMeAttention(dim, num_heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = Mlp(dim, dim * mlp_ratio)

    def forward(self, x, size, r):
        x_attn, metric = self.attn(self.norm1(x), size)
        x = x + x_attn
        if r > 0:
            merge = bipartite_soft_matching(metric, r, class_token=True)
            x, size = merge_wavg(merge, x, size)
        x = x + self.mlp(self.norm2(x))
        return x, size


class Model(nn.Module):
    def __init__(self, image_size, patch_size, embed_dim, num_heads, mlp_ratio, depth, merge_r, num_classes):
        super().__init__()
        self.merge_r = merge_r
        num_patches = (image_size // patch_size) ** 2
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, embed_dim))
        self.blocks = nn.ModuleList([ToMeBlock(embed_dim, num_heads, mlp_ratio) for _ in range(depth)])
        self.norm = nn.LayerNorm(embed_dim, eps=1e-6)
        self.head = nn.Linear(embed_dim, num_classes)
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.trunc_normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)

    def forward(self, images):
        x = self.patch_embed(images).flatten(2).transpose(1, 2)  # (B, N, C)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        size = torch.ones_like(x[..., 0, None])  # (B, N, 1): every token starts as one patch
        for block in self.blocks:
            x, size = block(x, size, self.merge_r)
        x = self.norm(x)
        return self.head(x[:, 0])


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [image_size, patch_size, embed_dim, num_heads, mlp_ratio, depth, merge_r, num_classes]
