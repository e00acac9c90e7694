"""BigBird-RoBERTa-base with attention_type="original_full": `google/bigbird-roberta-base`'s config.

Full (quadratic) attention over 1024 tokens (the checkpoint's context is 4096: shortened for the CPU sweep): the
same length as hf_bigbird_roberta_base_sparse.py, so the two differ only in the attention algorithm.
Output: (last_hidden_state (batch, 1024, 768), pooler_output (batch, 768)).
"""
import torch
from torch import nn
from transformers import BigBirdConfig, BigBirdModel

batch_size = 1
seq_len = 1024  # the checkpoint's context is 4096: shortened for the CPU sweep (same length as the block-sparse variant)


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
    # google/bigbird-roberta-base config.json = BigBirdConfig defaults (vocab 50358, hidden 768, 12 layers,
    # 12 heads, intermediate 3072, gelu_new, max_position_embeddings 4096, type_vocab 2, layer_norm_eps 1e-12,
    # block_size 64, num_random_blocks 3), with the attention switched to full, as the model card shows.
    return [BigBirdConfig(attention_type="original_full")]
