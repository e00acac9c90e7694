"""NeoMME multimodal retrieval encoder (H company, `Hcompany/NeoMME-260M`): one bidirectional transformer encoder
over text tokens and document-page image patches, with a ColBERT-style multi-vector head and a mean-pooled dense
head. Text tokens use ALBERT-style factorised embeddings (vocab -> rank 256 -> hidden); a page image arrives as a
flat list of 32 x 32 pixel patches (LayerNorm, Linear-GELU-Linear stem) scattered into the `<img>` placeholders of
the sequence `<doc> <img> (<img> x W <row>) x H` (a placeholder right after `<doc>` is a marker, not a patch). Two-axis
M-RoPE (row/column frequencies interleaved): text uses its index on both axes, patches their (row, column) in the
grid. Each layer mixes the running state with the normalised embedding (learned lambdas), runs pre-RMSNorm
(scale-free) attention with scale-free q/k RMSNorm, GQA, per-layer-type RoPE (sliding layers rotate the whole head at
theta 1e4, global layers 25 % of it at theta 1e6) and symmetric bidirectional sliding windows alternating short and
long (every 6th and the last layer global); token-keyed value embeddings are added to V in the first and last
global layers; "exclusive self-attention" removes from each head's output a tanh(alpha)-scaled projection onto its
own token's normalised value; a sigmoid gate from the layer input multiplies the attention output before o_proj;
the relu^2 MLP; both residual branches scaled by 1 / sqrt(2 L). Then a final RMSNorm, the multi-vector head (Linear,
L2 norm, padding rows zeroed) and the dense head (masked mean, L2 norm).

NeoMMEForRetrieval (sdpa); the output is the tuple (embeddings (2, 26, 32), dense_embeddings (2, 64)).
Shrunk: hidden 1024 -> 64, 17 layers -> 4 (sliding-short, global, sliding-long, global, so that the value
embeddings go to two distinct global layers), 16 heads / 4 kv -> 4 / 2, head_dim 64 -> 16 (global layers rotate 4
dims), intermediate 3584 -> 128, embedding_rank 256 -> 32, embedding_dim 128 -> 32, vocab 131072 -> 1024, patch 32 ->
8, sliding windows 256 / 1024 -> 4 / 12 (half-widths, on 26 tokens), max positions 16384 -> 128.
Kept: relu2, rope thetas 1e4 / 1e6 with partial_rotary 1.0 / 0.25, norm_eps 1e-6, residual_multiplier 1/sqrt(2 L),
pad 0, `<doc>` 5, `<img>` 6, no attention bias. The init zeroes the exclusive-attention alphas, the o_proj / MLP
down_proj weights and the value embeddings (a fresh model would be the embedding alone); they are re-drawn here
so that every path contributes.
Inputs: input_ids (2, 26): sample 0 a document page (`<doc> <img>` then a 4 x 5 patch grid with `<row>` markers, 26
tokens), sample 1 a 20-token text query right-padded by 6 (pad 0); attention_mask; position_ids (2, 2, 26) as
NeoMMEProcessor builds them; pixel_values (20, 192): the page's patches, ImageNet-standard normalised to [-1, 1].
"""
import torch
from torch import nn
from transformers import NeoMMEConfig, NeoMMEForRetrieval

batch_size = 2
grid_height, grid_width = 4, 5
patch_size = 8
seq_len = 2 + grid_height * (grid_width + 1)  # 26
query_len = 20
vocab_size = 1024
pad_token_id = 0
document_token_id = 5
image_token_id = 6
row_token_id = 7  # the tokenizer's <row> marker (any id that is not a placeholder)
query_token_id = 8  # the retrieval template's query marker


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = NeoMMEForRetrieval(config)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():  # undo the zero inits (see the docstring)
            for name, p in self.model.named_parameters():
                if name.endswith("exclusive_self_attention.alpha"):
                    p.uniform_(-1.0, 1.0, generator=gen)
                elif name.endswith(("output_projection.o_proj.weight", "mlp.down_proj.weight", "value_embeddings.weight")):
                    p.normal_(0.0, 0.02, generator=gen)

    def forward(self, input_ids, attention_mask, position_ids, pixel_values):
        out = self.model(
            input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, pixel_values=pixel_values
        )
        return out.embeddings, out.dense_embeddings


def page_tokens_and_positions():
    ids = [document_token_id, image_token_id] + ([image_token_id] * grid_width + [row_token_id]) * grid_height
    pos = torch.empty(seq_len, 2, dtype=torch.long)  # NeoMMEProcessor._image_positions
    pos[:2] = torch.arange(2).unsqueeze(-1)
    pos[2:, 0] = 2 + torch.arange(grid_height).unsqueeze(-1).expand(-1, grid_width + 1).reshape(-1)
    pos[2:, 1] = 2 + torch.arange(grid_width + 1).unsqueeze(0).expand(grid_height, -1).reshape(-1)
    return torch.tensor(ids), pos.T


def get_inputs():
    input_ids = torch.full((batch_size, seq_len), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    position_ids = torch.zeros(2, batch_size, seq_len, dtype=torch.long)
    num_pages = 0
    for b in range(batch_size):
        if b % 2 == 0:  # a document page
            ids, pos = page_tokens_and_positions()
            input_ids[b] = ids
            attention_mask[b] = 1
            position_ids[:, b] = pos
            num_pages += 1
        else:  # a text query, right-padded
            input_ids[b, :query_len] = torch.randint(16, vocab_size, (query_len,))
            input_ids[b, 0] = query_token_id
            attention_mask[b, :query_len] = 1
            position_ids[:, b, :query_len] = torch.arange(query_len)
    # pixels in [0, 1] -> (x - 0.5) / 0.5, cut into row-major patches flattened as (py, px, c)
    pixel_values = torch.rand(num_pages * grid_height * grid_width, patch_size * patch_size * 3) * 2 - 1
    return [input_ids, attention_mask, position_ids, pixel_values]


def get_init_inputs():
    # Hcompany/NeoMME-260M (NeoMMEConfig defaults). Kept: relu2, rope thetas 1e4 (sliding) / 1e6 (global),
    # partial_rotary_factor 1.0 / 0.25, norm_eps 1e-6, residual_multiplier (2 L)^-0.5, token ids pad 0 / doc 5 / img 6,
    # tied factorised embeddings.
    return [NeoMMEConfig(
        vocab_size=vocab_size,  # published 131072
        embedding_rank=32,  # published 256
        hidden_size=64,  # published 1024
        intermediate_size=128,  # published 3584
        num_hidden_layers=4,  # published 17
        layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
        per_layer_config={  # published: short 256 / long 1024 half-width windows, alternating
            0: {"sliding_window": 4},
            1: {"sliding_window": None},
            2: {"sliding_window": 12},
            3: {"sliding_window": None},
        },
        sliding_window=4,
        num_attention_heads=4,  # published 16
        num_key_value_heads=2,  # published 4
        head_dim=16,  # published 64
        max_position_embeddings=128,  # published 16384
        patch_size=patch_size,  # published 32
        embedding_dim=32,  # published 128
        pad_token_id=pad_token_id,
        document_token_id=document_token_id,
        image_token_id=image_token_id,
    )]
