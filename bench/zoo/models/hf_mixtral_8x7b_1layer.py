"""Mixtral-8x7B's architecture (`mistralai/Mixtral-8x7B-v0.1`) with num_hidden_layers=1 instead of 32.

DEVIATION: the full model is 46.7B parameters (187 GB fp32). One layer with every published dimension kept
(hidden 4096, 8 experts of intermediate 14336, top-2 routing, 32 query / 8 key-value heads, vocab 32000,
rope_theta 1e6, rms_norm_eps 1e-5, no sliding window, max_position_embeddings 32768) is ~1.71B parameters,
6.9 GB fp32: it fits the ~8 GB budget, so no smaller Mixtral config is needed.
Sequence length 128 (context 4096+: shortened for the CPU sweep). Output: LM logits (batch, 128, 32000).
"""
import torch
from torch import nn
from transformers import MixtralConfig, MixtralForCausalLM

batch_size = 1
seq_len = 128  # shortened for the CPU sweep


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MixtralForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 32000, (batch_size, seq_len))]


def get_init_inputs():
    # mistralai/Mixtral-8x7B-v0.1 config.json (fields that differ from MixtralConfig's defaults) + the layer
    # cut. Same as the defaults: hidden 4096, intermediate 14336, 32 heads, 8 kv heads, 8 local experts,
    # 2 experts per token, vocab 32000, rope_theta 1e6, rms_norm_eps 1e-5, sliding_window None, untied head.
    return [MixtralConfig(
        num_hidden_layers=1,  # published: 32 (see the module docstring)
        max_position_embeddings=32768,
        router_aux_loss_coef=0.02,
    )]
