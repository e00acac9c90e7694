"""diffusers `RFD4ProteinaTransformer`: the velocity denoiser of RFD4-Proteina (Institute for Protein Design / NVIDIA
Proteina lineage, 2026; the `RFD4ProteinaPipeline` flow-matching protein-structure generator), shrunk. Not an image
or video model: it denoises a molecule of N tokens (residues) in two modalities at once, the C-alpha backbone
coordinates (nm) and a per-token local latent (of the companion `RFD4ProteinaAutoencoder`), each at its own flow time,
and keeps a PAIR representation z (N x N x C) next to the token states s (N x D), AlphaFold-style.
  - Features: token inputs = [noisy coordinates, noisy latents, token-type embedding] -> linear; conditioning vector
    = two sinusoidal time embeddings -> linear -> two SwiGLU transitions; pair inputs = one-hot bins of the pairwise
    distances of the noisy backbone, one-hot bond-path lengths (sequence separation) and a same-molecule flag ->
    linear + RMSNorm, then adaptive-normalised by the pair conditioning (the two time embeddings).
  - Trunk layer: pair-biased attention (RMSNorm'd q / k, a per-head bias projected from z added to the logits,
    sigmoid-gated output, padded pairs masked) and a SwiGLU transition, each wrapped in adaptive RMSNorm (sigmoid
    gamma, beta from the conditioning) and an adaptive sigmoid output scale (adaLN-Zero-like).
  - Every update_pair_repr_every_n layers the pair stack is updated from the tokens: outer product of two
    projections of s, triangle multiplicative update "outgoing" then "incoming" (gated projections, an einsum over the
    third token k of every (i, j, k) triangle, LayerNorm, gated output) and a ReLU pair transition.
  - Recycling: the whole trunk runs recycle_depth times, each pass adding RMSNorm + linear of the previous pass's
    s and z to the inputs.
  - Heads: backbone velocity (3), latent velocity, 147-way residue-type logits and N x N insertion logits (q . k).

Published (diffusers defaults): 14 layers, token_dim 768, 12 heads, dim_cond 256, pair 384, tri_mult_c 256, latent 32,
t_emb 256, 64 bond-path bins, pair update every 2 layers, 21 token features / 10 pair features (most of them optional
design conditions: hotspots, secondary structure, h-bonds, CATH, ...). Shrunk: 4 layers, token_dim 64, 4 heads,
dim_cond 32, pair 32, tri_mult_c 32, latent 8, t_emb 32, token-type embedding 32 -> 16, bond-path bins 64 -> 32; the
features are cut to the unconditional ones listed above (the absent design conditions would only be zeros).
Kept: 30 distance bins over 0.1-3.0 nm, 7 token types, 147 residue classes, RMS norms, pair update every 2 layers
(after layers 0 and 2), recycle_depth 2 (the released sampler uses 1-6 per step).
Inputs: bb_ca (2, 32, 3) noisy C-alpha coordinates, local_latents (2, 32, 8), bb_ca_time and local_latents_time (2,),
padding_mask (2, 32) (the second molecule 28 tokens), token_type (2, 32), molecule_iid (2, 32) (two chains each),
token_bond_path_length (2, 32, 32). Outputs: backbone velocity (2, 32, 3), latent velocity (2, 32, 8), sequence
logits (2, 32, 147), insertion logits (2, 32, 32).
"""
import torch
from diffusers import RFD4ProteinaTransformer
from torch import nn

batch_size = 2
seq_len = 32  # tokens (residues)
latent_dim = 8
recycle_depth = 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = RFD4ProteinaTransformer(**config)

    def forward(self, bb_ca, local_latents, bb_ca_time, local_latents_time, padding_mask, token_type, molecule_iid,
                token_bond_path_length):
        conditioning = {
            "molecule_iid": molecule_iid,
            "token_bond_path_length": token_bond_path_length,
            "is_in_context_conditioning": torch.zeros_like(padding_mask),  # nothing is given: design everything
            "supports_local_latent": padding_mask,  # every real token is a residue with a local latent
        }
        return self.model(bb_ca, local_latents, bb_ca_time, local_latents_time, padding_mask, token_type=token_type,
                          conditioning=conditioning, recycle_depth=recycle_depth, return_dict=False)


def get_inputs():
    # a noisy chain: a 3-D random walk of ~0.38 nm C-alpha steps, then noise
    steps = torch.randn(batch_size, seq_len, 3)
    bb_ca = 0.38 * torch.cumsum(steps / steps.norm(dim=-1, keepdim=True), dim=1)
    bb_ca = bb_ca - bb_ca.mean(dim=1, keepdim=True) + 0.3 * torch.randn(batch_size, seq_len, 3)
    local_latents = torch.randn(batch_size, seq_len, latent_dim)
    bb_ca_time = torch.rand(batch_size)
    local_latents_time = torch.rand(batch_size)
    padding_mask = torch.ones(batch_size, seq_len, dtype=torch.bool)
    padding_mask[1, -4:] = False
    token_type = torch.zeros(batch_size, seq_len, dtype=torch.long)  # 0: protein
    molecule_iid = torch.zeros(batch_size, seq_len, dtype=torch.long)
    molecule_iid[:, 20:] = 1  # two chains
    idx = torch.arange(seq_len)
    path = (idx[:, None] - idx[None, :]).abs()
    path = torch.where(molecule_iid[:, :, None] == molecule_iid[:, None, :], path, 0)  # no bond path across chains
    return [bb_ca, local_latents, bb_ca_time, local_latents_time, padding_mask, token_type, molecule_iid, path]


def get_init_inputs():
    # RFD4ProteinaTransformer defaults (the released checkpoint's layout), shrunk where commented.
    return [dict(
        nlayers=4,  # published 14
        token_dim=64,  # published 768
        nheads=4,  # published 12
        dim_cond=32,  # published 256
        pair_repr_dim=32,  # published 384
        latent_dim=latent_dim,  # published 32
        token_type_emb_dim=16,  # published 32
        t_emb_dim=32,  # published 256
        seq_sep_dim=32,  # published 64
        xt_pair_dist_dim=30,
        xt_pair_dist_min=0.1,
        xt_pair_dist_max=3.0,
        feats_seq=("xt_bb_ca", "xt_local_latents", "token_type"),  # published: 21 features
        feats_cond_seq=("time_emb_bb_ca", "time_emb_local_latents"),  # published: + cath_code, recycle_remaining
        feats_pair_repr=("xt_bb_ca_pair_dists", "token_bond_path_length", "molecule_idx_pair"),  # published: 10
        feats_pair_cond=("time_emb_bb_ca", "time_emb_local_latents"),
        update_pair_repr_every_n=2,
        tri_mult_c=32,  # published 256
        num_sequence_classes=147,
        num_token_types=7,
    )]
