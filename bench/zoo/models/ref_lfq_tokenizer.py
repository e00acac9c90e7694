"""Lookup-free quantisation (LFQ) image tokenizer (Yu et al., ICLR 2024, "Language Model Beats Diffusion -
Tokenizer is Key to Visual Generation", MAGVIT-v2, sec. 3.1), in plain PyTorch, with the LFQ layer written as
vector-quantize-pytorch's LFQ (lucidrains) computes it. LFQ shrinks the code embedding to zero dimensions: the
codebook is the implicit product set C = {-1, +1}^K, so quantisation is a per-channel sign and needs no distance
search or lookup:
    q = sign(z)  (z > 0 -> +1 else -1);  index = sum_k [q_k > 0] 2^k     (K = log2 |C| bits per token)
    straight-through in training: z + (q - z).detach()  (the value is q either way)
    entropy penalty  L_ent = mean_tokens H(p(c | z)) - gamma * H(mean_tokens p(c | z)),
        p(c | z) = softmax_c(2 <z, c> / tau) over all 2^K codes  (= softmax of -||z - c||^2 / tau, as ||c||^2 = K)
    commitment loss  L_commit = ||z - sg(q)||^2
The encoder / decoder are MAGVIT-v2-style 2D conv stacks: Conv 3x3, residual blocks (GroupNorm, SiLU, Conv 3x3,
twice), stride-2 Conv downsampling; a 1x1 Conv to the K-bit code space; the decoder mirrors it with a 1x1 Conv from
the codes, residual blocks and nearest-neighbour x2 upsampling + Conv, then GroupNorm, SiLU and a Conv to RGB.
The penalties are computed in every forward (they are what a training step would add to the loss).

Sizes: 32 x 32 images, widths (32, 64), 2 downsamplings (an 8 x 8 token grid), K = 10 bits (1024 implicit codes; the
paper's tokenizer: K = 18, 262144 codes, 128 x 128 -> 16 x 16 for video frames), entropy temperature 0.01,
diversity gamma 1, GroupNorm 8 groups.
Input: images (2, 3, 32, 32) in [-1, 1]. Output: (reconstruction (2, 3, 32, 32), token indices (2, 8, 8) int64,
entropy penalty (), commitment loss ()).
"""
import torch
import torch.nn.functional as F
from torch import nn

batch_size = 2
image_size = 32
channels = (32, 64)
codebook_bits = 10
entropy_temperature = 0.01
diversity_gamma = 1.0


class ResBlock(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.norm1 = nn.GroupNorm(8, c_in)
        self.conv1 = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.norm2 = nn.GroupNorm(8, c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1)
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x):
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return self.skip(x) + h


class Encoder(nn.Module):
    def __init__(self, channels, code_dim):
        super().__init__()
        self.conv_in = nn.Conv2d(3, channels[0], 3, padding=1)
        blocks, c = [], channels[0]
        for c_next in channels:
            blocks += [ResBlock(c, c_next), nn.Conv2d(c_next, c_next, 3, stride=2, padding=1)]
            c = c_next
        self.blocks = nn.Sequential(*blocks)
        self.mid = ResBlock(c, c)
        self.norm_out = nn.GroupNorm(8, c)
        self.conv_out = nn.Conv2d(c, code_dim, 1)

    def forward(self, x):
        h = self.mid(self.blocks(self.conv_in(x)))
        return self.conv_out(F.silu(self.norm_out(h)))


class Decoder(nn.Module):
    def __init__(self, channels, code_dim):
        super().__init__()
        c = channels[-1]
        self.conv_in = nn.Conv2d(code_dim, c, 1)
        self.mid = ResBlock(c, c)
        blocks = []
        for c_next in reversed(channels):
            blocks += [ResBlock(c, c_next), nn.Upsample(scale_factor=2, mode="nearest"),
                       nn.Conv2d(c_next, c_next, 3, padding=1)]
            c = c_next
        self.blocks = nn.Sequential(*blocks)
        self.norm_out = nn.GroupNorm(8, c)
        self.conv_out = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, z):
        h = self.blocks(self.mid(self.conv_in(z)))
        return self.conv_out(F.silu(self.norm_out(h)))


class LFQ(nn.Module):
    def __init__(self, codebook_bits, entropy_temperature, diversity_gamma):
        super().__init__()
        self.codebook_bits = codebook_bits
        self.inv_temperature = 1.0 / entropy_temperature
        self.diversity_gamma = diversity_gamma
        self.register_buffer("mask", 2 ** torch.arange(codebook_bits - 1, -1, -1), persistent=False)
        # the implicit codebook, materialised only for the entropy penalty: row i = bits of i mapped to {-1, +1}
        all_codes = torch.arange(2 ** codebook_bits)
        bits = ((all_codes[:, None].bitwise_and(self.mask)) != 0).float()
        self.register_buffer("codebook", bits * 2.0 - 1.0, persistent=False)

    @staticmethod
    def entropy(prob, eps=1e-5):
        return (-prob * torch.log(prob.clamp(min=eps))).sum(dim=-1)

    def forward(self, z):
        b, d, h, w = z.shape
        x = z.permute(0, 2, 3, 1).reshape(b, h * w, d)  # (b, n, K)
        ones = torch.ones_like(x)
        quantized = torch.where(x > 0, ones, -ones)
        indices = ((quantized > 0).long() * self.mask).sum(dim=-1)  # (b, n)
        if self.training:
            quantized = x + (quantized - x).detach()  # straight-through
        # entropy penalty over the implicit codebook
        distance = -2 * torch.einsum("bnd,cd->bnc", x, self.codebook)
        prob = (-distance * self.inv_temperature).softmax(dim=-1)
        per_sample_entropy = self.entropy(prob).mean()
        avg_prob = prob.reshape(-1, prob.shape[-1]).mean(dim=0)
        codebook_entropy = self.entropy(avg_prob)
        entropy_aux_loss = per_sample_entropy - self.diversity_gamma * codebook_entropy
        commit_loss = F.mse_loss(x, quantized.detach())
        q = quantized.reshape(b, h, w, d).permute(0, 3, 1, 2)
        return q, indices.reshape(b, h, w), entropy_aux_loss, commit_loss


class Model(nn.Module):
    def __init__(self, channels, codebook_bits, entropy_temperature, diversity_gamma):
        super().__init__()
        self.encoder = Encoder(channels, codebook_bits)
        self.quantizer = LFQ(codebook_bits, entropy_temperature, diversity_gamma)
        self.decoder = Decoder(channels, codebook_bits)

    def forward(self, images):
        z = self.encoder(images)
        q, indices, entropy_aux_loss, commit_loss = self.quantizer(z)
        return self.decoder(q), indices, entropy_aux_loss, commit_loss


def get_inputs():
    return [torch.rand(batch_size, 3, image_size, image_size) * 2 - 1]


def get_init_inputs():
    return [channels, codebook_bits, entropy_temperature, diversity_gamma]
