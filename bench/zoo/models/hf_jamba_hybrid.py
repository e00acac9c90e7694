"""Jamba (Mamba layers interleaved with GQA attention layers, MoE on every other layer), after
`ai21labs/Jamba-v0.1`, shrunk.

4 layers: layers 0, 1, 3 are Mamba, layer 2 is attention (attn period 8 / offset 4 -> period 4 / offset 2);
layers 1 and 3 use the MoE MLP, 0 and 2 the dense MLP (expert period 2 / offset 1, as published).
use_mamba_kernels=False is set as the Jamba model card tells CPU users to (no mamba-ssm / causal-conv1d CUDA
kernels); transformers 5.24 deprecates the flag (a warning, no effect) and falls back to PyTorch by itself.
Shrunk: hidden 4096 -> 128, 32 layers -> 4, 32 heads -> 4, 8 kv heads -> 2, intermediate 14336 -> 256,
16 experts -> 4 (top-2 kept), vocab 65536 -> 1000; mamba d_state 16, d_conv 4, expand 2, dt_rank auto kept.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded. Output: logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import JambaConfig, JambaForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = JambaForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # ai21labs/Jamba-v0.1 config.json. Kept: silu, rms_norm_eps 1e-6, top-2 routing, expert period 2 / offset 1,
    # mamba d_state 16, d_conv 4, expand 2, dt_rank "auto", conv bias on, proj bias off, untied head,
    # pad 0 / bos 1 / eos 2, max_position_embeddings 262144.
    return [JambaConfig(
        vocab_size=vocab_size,  # published 65536
        hidden_size=128,  # published 4096
        intermediate_size=256,  # published 14336
        num_hidden_layers=4,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        num_experts=4,  # published 16
        num_experts_per_tok=2,
        expert_layer_period=2,
        expert_layer_offset=1,
        attn_layer_period=4,  # published 8
        attn_layer_offset=2,  # published 4
        mamba_d_state=16,
        mamba_d_conv=4,
        mamba_expand=2,
        mamba_dt_rank="auto",
        mamba_conv_bias=True,
        mamba_proj_bias=False,
        use_mamba_kernels=False,  # model card advice for CPU; deprecated no-op in 5.24
        hidden_act="silu",
        rms_norm_eps=1e-6,
        max_position_embeddings=262144,
        tie_word_embeddings=False,
    )]
