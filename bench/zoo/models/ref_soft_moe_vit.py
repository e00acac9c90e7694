"""Soft MoE vision transformer (Puigcerver, Riquelme, Mustafa & Houlsby, ICLR 2024, "From Sparse to Soft Mixtures
of Experts"), plain-torch reference written the way the authors' google-research/vmoe code writes it
(vmoe/projects/soft_moe/router.py SoftRouter + the einsum dispatcher + vmoe.nn.vit_moe; JAX einsums ported
one to one to torch.einsum).

Soft MoE layer (g = groups = images, m = tokens per image, n = experts, p = slots per expert, d = width):
    x_hat  = x / sqrt(sum(x^2, -1) + 1e-6)                 tokens L2-normalised
    mu_hat = mu / sqrt(sum(mu^2, 0) + 1e-6)                 mu (d, n, p): one learned vector per slot, normalised
    the learned scalar `scale` multiplies whichever of x_hat / mu_hat has fewer elements
    logits = einsum('gmd,dnp->gmnp', x_hat, mu_hat)
    D = softmax(logits, axis=m)                             dispatch: each slot is a convex mix of all tokens
    C = softmax(logits, axis=(n, p))                        combine: each token is a convex mix of all slots
    slots = einsum('gmnp,gmd->gnpd', D, x)                  (on the un-normalised tokens)
    y_slots = expert_n(slots[:, n])                         per-expert MLP (Dense, GELU, Dense), batched by einsum
    y = einsum('gmnp,gnpd->gmd', C, y_slots)
Fully differentiable, no token dropping, no sorting: the routing is two softmaxes and four einsums.
ViT (vmoe VisionTransformerMoe, as in the paper's configs): patch embedding conv, learned position embeddings,
pre-LN blocks x <- x + MHA(LN(x)) with per-head LayerNorm (no bias) on queries and keys (attention_qk_norm),
x <- x + MLP_or_SoftMoE(LN(x)), the last half of the blocks Soft MoE ("last_n"), final LayerNorm, global average
pooling ("gap") and a linear head with bias initialised at -log(num_classes). One slot per expert, as in the
paper's long runs. No noise (deterministic router), fp32 throughout (the authors' dispatcher casts to bf16).
Sizes: 32 x 32 images, patch 4 (64 tokens), width 64, 4 heads, MLP 256, 4 blocks (the last 2 Soft MoE),
32 experts x 1 slot (32 slots for 64 tokens: capacity 0.5; published S/16: 128 experts for 196 tokens, 6 of 12
blocks Soft MoE, width 384, 6 heads, MLP 1536), 100 classes.
Inits as the flax defaults: lecun-normal kernels, zero biases, mu lecun-normal, scale 1, position embeddings
N(0, 0.02^2); head bias -log(num_classes) as configured, but the head kernel lecun-normal instead of the configured
zeros (a zero head would make every logit the same constant).
Input: images (2, 3, 32, 32) in [-1, 1] (the configs' value_range(-1, 1)). Output: logits (2, 100).
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
image_size = 32
patch_size = 4
hidden_size = 64
num_heads = 4
mlp_dim = 256
num_layers = 4
last_n = 2  # Soft MoE in the last 2 blocks
num_experts = 32
num_slots = 1
num_classes = 100


def lecun_normal_(w, fan_in):
    """flax lecun_normal: a normal truncated at +-2 std, rescaled to variance 1 / fan_in."""
    std = 1.0 / math.sqrt(fan_in) / 0.87962566103423978
    return nn.init.trunc_normal_(w, std=std, a=-2.0 * std, b=2.0 * std)


def dense(d_in, d_out):
    layer = nn.Linear(d_in, d_out)
    lecun_normal_(layer.weight, d_in)
    nn.init.zeros_(layer.bias)
    return layer


def normalize(x, axis=-1, eps=1e-6):
    m = torch.rsqrt(torch.square(x).sum(dim=axis, keepdim=True) + eps)
    return x * m


class SoftRouter(nn.Module):
    """Soft router merging tokens as inputs/outputs of the experts."""

    def __init__(self, dim, num_experts, num_slots):
        super().__init__()
        self.mu = nn.Parameter(torch.empty(dim, num_experts, num_slots))
        lecun_normal_(self.mu, dim)
        self.scale = nn.Parameter(torch.ones(()))

    def forward(self, inputs):
        # Normalize inputs to have unit norm.
        inputs = normalize(inputs, axis=-1)
        # Create num_experts * num_slots parameters, normalized to have unit norm.
        mu = normalize(self.mu, axis=0)
        # Scale inputs/mu before computing the logits.
        if inputs.numel() < mu.numel():
            inputs = inputs * self.scale
        else:
            mu = mu * self.scale
        # Compute router logits between pairs of items (m) and total slots (n * p), independently on each group (g).
        logits = torch.einsum("gmd,dnp->gmnp", inputs, mu)
        # Each slot takes a convex combination of the inputs.
        dispatch_weights = torch.softmax(logits, dim=1)
        # Each item takes a convex combination of all the outputs of each slot.
        g, m, n, p = logits.shape
        combine_weights = torch.softmax(logits.reshape(g, m, n * p), dim=-1).reshape(g, m, n, p)
        return dispatch_weights, combine_weights


class SoftMoeMlp(nn.Module):
    def __init__(self, dim, mlp_dim, num_experts, num_slots):
        super().__init__()
        self.router = SoftRouter(dim, num_experts, num_slots)
        # Expert MLPs stacked along the expert axis (the vmap'ed flax Mlp of vmoe).
        self.w1 = nn.Parameter(torch.empty(num_experts, dim, mlp_dim))
        self.b1 = nn.Parameter(torch.zeros(num_experts, mlp_dim))
        self.w2 = nn.Parameter(torch.empty(num_experts, mlp_dim, dim))
        self.b2 = nn.Parameter(torch.zeros(num_experts, dim))
        lecun_normal_(self.w1, dim)
        lecun_normal_(self.w2, mlp_dim)

    def forward(self, x):
        dispatch_weights, combine_weights = self.router(x)
        # EinsumDispatcher.dispatch: every slot gathers a weighted sum of the group's tokens.
        slots = torch.einsum("gmnp,gmd->gnpd", dispatch_weights, x)
        h = torch.einsum("gnpd,ndh->gnph", slots, self.w1) + self.b1[None, :, None]
        h = F.gelu(h, approximate="tanh")  # flax nn.gelu defaults to the tanh approximation
        y = torch.einsum("gnph,nhd->gnpd", h, self.w2) + self.b2[None, :, None]
        # EinsumDispatcher.combine: every token takes a weighted sum of all slot outputs.
        return torch.einsum("gmnp,gnpd->gmd", combine_weights, y)


class Mlp(nn.Module):
    def __init__(self, dim, mlp_dim):
        super().__init__()
        self.fc1 = dense(dim, mlp_dim)
        self.fc2 = dense(mlp_dim, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x), approximate="tanh"))


class Attention(nn.Module):
    """flax MultiHeadDotProductAttention with normalize_qk=True."""

    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.query = dense(dim, dim)
        self.key = dense(dim, dim)
        self.value = dense(dim, dim)
        self.out = dense(dim, dim)
        self.query_ln = nn.LayerNorm(self.head_dim, eps=1e-6, bias=False)
        self.key_ln = nn.LayerNorm(self.head_dim, eps=1e-6, bias=False)

    def forward(self, x):
        b, s, _ = x.shape
        q = self.query_ln(self.query(x).view(b, s, self.num_heads, self.head_dim))
        k = self.key_ln(self.key(x).view(b, s, self.num_heads, self.head_dim))
        v = self.value(x).view(b, s, self.num_heads, self.head_dim)
        q = q / math.sqrt(self.head_dim)
        attn = torch.softmax(torch.einsum("bqhd,bkhd->bhqk", q, k), dim=-1)
        o = torch.einsum("bhqk,bkhd->bqhd", attn, v)
        return self.out(o.reshape(b, s, -1))


class EncoderBlock(nn.Module):
    def __init__(self, dim, num_heads, mlp_dim, moe):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, num_heads)
        self.ln2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = SoftMoeMlp(dim, mlp_dim, num_experts, num_slots) if moe else Mlp(dim, mlp_dim)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Model(nn.Module):
    def __init__(self, image_size, patch_size, hidden_size, num_heads, mlp_dim, num_layers, num_classes):
        super().__init__()
        self.embedding = nn.Conv2d(3, hidden_size, kernel_size=patch_size, stride=patch_size)
        lecun_normal_(self.embedding.weight, 3 * patch_size * patch_size)
        nn.init.zeros_(self.embedding.bias)
        num_tokens = (image_size // patch_size) ** 2
        self.posemb = nn.Parameter(torch.randn(1, num_tokens, hidden_size) * 0.02)
        moe_layers = set(range(num_layers)[-last_n:])
        self.blocks = nn.ModuleList(
            [EncoderBlock(hidden_size, num_heads, mlp_dim, moe=i in moe_layers) for i in range(num_layers)]
        )
        self.encoder_norm = nn.LayerNorm(hidden_size, eps=1e-6)
        self.head = nn.Linear(hidden_size, num_classes)
        nn.init.constant_(self.head.bias, -math.log(num_classes))
        lecun_normal_(self.head.weight, hidden_size)  # configured zeros: stand in for a trained head

    def forward(self, images):
        x = self.embedding(images)  # (b, d, h, w)
        x = x.flatten(2).transpose(1, 2) + self.posemb  # (b, m, d)
        for block in self.blocks:
            x = block(x)
        x = self.encoder_norm(x)
        return self.head(x.mean(dim=1))  # classifier "gap"


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size) * 2 - 1]


def get_init_inputs():
    return [image_size, patch_size, hidden_size, num_heads, mlp_dim, num_layers, num_classes]
