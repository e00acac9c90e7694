"""OPT-1.3B: the published config of `facebook/opt-1.3b`.

Sequence length 128 (the context is 2048: shortened for the CPU sweep). Output: LM logits (batch, 128, 50272).
fp32 weights ~5.3 GB.
"""
import torch
from torch import nn
from transformers import OPTConfig, OPTForCausalLM

batch_size = 1
seq_len = 128  # OPT's training context is 2048: shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = OPTForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 50272, (batch_size, seq_len))]


def get_init_inputs():
    # facebook/opt-1.3b config.json (fields that differ from OPTConfig's defaults). The rest matches the
    # defaults: vocab 50272, max_position_embeddings 2048, relu, do_layer_norm_before, dropout 0.1,
    # attention_dropout 0.0, pad 1 / bos 2 / eos 2, tied LM head.
    return [OPTConfig(
        hidden_size=2048,
        num_hidden_layers=24,
        num_attention_heads=32,
        ffn_dim=8192,
        word_embed_proj_dim=2048,
    )]
