"""Nemotron-H (hybrid decoder whose blocks each hold ONE mixer: Mamba2 SSD blocks (M), squared-ReLU MLP blocks (-)
and a few NoPE GQA attention blocks (*), each pre-RMSNorm with a residual; grouped RMSNorm gating in Mamba2),
after `nvidia/Nemotron-H-8B-Base-8K`, shrunk.

Shrunk: hidden 4096 -> 128, 52 blocks (Mamba2 / MLP pattern with 4 attention blocks) -> 4 blocks "M-*-"
(Mamba2, MLP, attention, MLP), intermediate 21504 -> 512, 32 heads -> 4, 8 KV heads -> 2, head_dim 128 -> 32,
mamba heads 128 -> 4 (mamba head_dim 64 kept, so expand 2 kept), ssm_state_size 128 -> 32, n_groups 8 -> 2,
chunk_size 128 -> 16 (so the 64-token input spans 4 SSD chunks), vocab 131072 -> 1000.
The Mamba2 mixer runs its pure-torch path (no mamba-ssm / causal-conv1d kernels needed).
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import NemotronHConfig, NemotronHForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = NemotronHForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # nvidia/Nemotron-H-8B-Base-8K config.json. Kept: relu2 MLP, no positional embedding in attention (NoPE),
    # conv_kernel 4, expand 2, mamba head_dim 64, conv bias on / projection bias off, layer_norm_epsilon 1e-5,
    # time_step_limit (0, inf), rescale_prenorm_residual, untied LM head.
    return [NemotronHConfig(
        vocab_size=vocab_size,  # published 131072
        hidden_size=128,  # published 4096
        layers_block_type=["linear_attention", "mlp", "full_attention", "mlp"],  # published 52-block "M-M-...*-..."
        intermediate_size=512,  # published 21504
        mlp_hidden_act="relu2",  # published relu2 (kept)
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        head_dim=32,  # published 128
        max_position_embeddings=8192,  # published 8192 (kept)
        mamba_num_heads=4,  # published 128
        mamba_head_dim=64,  # published 64 (kept)
        ssm_state_size=32,  # published 128
        n_groups=2,  # published 8
        conv_kernel=4,  # published 4 (kept)
        expand=2,  # published 2 (kept)
        chunk_size=16,  # published 128
        layer_norm_epsilon=1e-5,  # published 1e-5 (kept)
        tie_word_embeddings=False,  # published false (kept)
    )]
