"""Paged attention, decode step (Kwon et al. 2023, "Efficient Memory Management for Large Language Model Serving
with PagedAttention", vLLM), written in plain PyTorch as the reference a kernel author checks a paged-attention
kernel against. The KV cache is a pool of fixed-size physical blocks held as module buffers
(num_blocks, block_size, kv_heads, head_dim); each sequence owns a row of the block table that maps its logical
blocks to physical ones. One decode step per sequence:
1. write the new token's key/value into its slot (block_table[b, pos // block_size] * block_size + pos % block_size,
   pos = seq_len - 1), out of place (index_copy on a flattened copy of the pool, so the buffers stay unchanged);
2. gather each sequence's blocks through the block table into (batch, max_blocks * block_size, kv_heads, head_dim);
3. single-query attention with grouped-query heads (heads / kv_heads query heads share one KV head), masking the
   slots at or beyond the sequence's length, softmax in float32.

Sizes: a pool of 64 blocks of 16 tokens, 2 KV heads, 8 query heads, head dim 64, up to 8 blocks (128 tokens) per
sequence; batch 2 with data-dependent lengths.
Inputs: q (batch, heads, head_dim), k_new and v_new (batch, kv_heads, head_dim), block_table (batch, max_blocks)
int64, seq_lens (batch,) int64 (the length including the new token, 1..128). Output: (batch, heads, head_dim).
"""
import torch
from torch import nn

batch_size = 2
heads = 8
kv_heads = 2
head_dim = 64
block_size = 16
num_blocks = 64  # physical blocks in the pool
max_blocks_per_seq = 8  # 128 tokens of context at most


class Model(nn.Module):
    def __init__(self, num_blocks, block_size, kv_heads, head_dim):
        super().__init__()
        self.block_size = block_size
        self.register_buffer("k_cache", torch.randn(num_blocks, block_size, kv_heads, head_dim))
        self.register_buffer("v_cache", torch.randn(num_blocks, block_size, kv_heads, head_dim))

    def forward(self, q, k_new, v_new, block_table, seq_lens):
        B, H, D = q.shape
        NB, BS, KVH, _ = self.k_cache.shape
        # 1. write the new token into its slot (out of place)
        pos = seq_lens - 1
        slot = block_table.gather(1, (pos // BS).unsqueeze(1)).squeeze(1) * BS + pos % BS
        k_pool = self.k_cache.reshape(NB * BS, KVH, D).index_copy(0, slot, k_new)
        v_pool = self.v_cache.reshape(NB * BS, KVH, D).index_copy(0, slot, v_new)
        # 2. gather each sequence's blocks through its block table
        k = k_pool.view(NB, BS, KVH, D)[block_table].reshape(B, -1, KVH, D)  # (B, L, KVH, D)
        v = v_pool.view(NB, BS, KVH, D)[block_table].reshape(B, -1, KVH, D)
        L = k.shape[1]
        # 3. single-query GQA attention over the valid slots
        qg = q.view(B, KVH, H // KVH, D) * D ** -0.5
        scores = torch.einsum("bgqd,blgd->bgql", qg, k)  # (B, KVH, H/KVH, L)
        valid = torch.arange(L, device=q.device)[None, :] < seq_lens[:, None]  # (B, L)
        scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
        probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
        out = torch.einsum("bgql,blgd->bgqd", probs, v)
        return out.reshape(B, H, D)


def get_inputs():
    q = torch.randn(batch_size, heads, head_dim)
    k_new = torch.randn(batch_size, kv_heads, head_dim)
    v_new = torch.randn(batch_size, kv_heads, head_dim)
    block_table = torch.randperm(num_blocks)[: batch_size * max_blocks_per_seq].view(batch_size, max_blocks_per_seq)
    seq_lens = torch.randint(1, max_blocks_per_seq * block_size + 1, (batch_size,))
    return [q, k_new, v_new, block_table, seq_lens]


def get_init_inputs():
    return [num_blocks, block_size, kv_heads, head_dim]
