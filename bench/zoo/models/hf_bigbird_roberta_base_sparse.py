"""BigBird-RoBERTa-base with attention_type="block_sparse" (the checkpoint's own): `google/bigbird-roberta-base`.

BigBirdModel falls back to full attention unless seq_len > (5 + 2 * num_random_blocks) * block_size
= (5 + 2*3) * 64 = 704 tokens; 1024 (a multiple of block_size 64; the context is 4096, shortened for the CPU
sweep) uses block sparse attention: 16 blocks of 64 tokens, 3 random + 3 sliding + 2 global blocks per query block. In eval mode the
random blocks are fixed (transformers draws no random numbers at inference), so the forward is deterministic.
Output: (last_hidden_state (batch, 1024, 768), pooler_output (batch, 768)).
"""
import torch
from torch import nn
from transformers import BigBirdConfig, BigBirdModel

batch_size = 1
seq_len = 1024  # > 704, so block_sparse really runs (context 4096: shortened for the CPU sweep)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BigBirdModel(config)

    def forward(self, input_ids):
        out = self.model(input_ids=input_ids)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    return [torch.randint(0, 50358, (batch_size, seq_len))]


def get_init_inputs():
    # google/bigbird-roberta-base config.json = BigBirdConfig defaults (attention_type "block_sparse",
    # block_size 64, num_random_blocks 3, hidden 768, 12 layers, 12 heads, vocab 50358, max positions 4096).
    return [BigBirdConfig(attention_type="block_sparse")]
