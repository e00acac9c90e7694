"""Zamba2 (Mamba2 backbone + one shared transformer block reused at several depths, with per-use LoRA adapters on
the shared block's q/k/v and gate/up projections), after `Zyphra/Zamba2-1.2B`, shrunk.

4 layers: mamba, hybrid, mamba, hybrid. A "hybrid" layer runs the shared attention+MLP block (on the concatenation
of the hidden state and the original embeddings, hence attention width 2 * hidden), a linear projection, then a
Mamba2 layer. With num_mem_blocks 1 the same block is called at both hybrid depths, each use with its own
adapters (use_shared_attention_adapter on, as published; transformers 5.24 always builds the MLP adapters,
use_shared_mlp_adapter is not a config field). RoPE in the shared attention (use_mem_rope) as published.
Shrunk: hidden 2048 -> 128, 38 layers -> 4, 32 heads -> 4, intermediate 8192 -> 512, adapter rank 128 -> 16,
64 mamba heads -> 4 (mamba head dim 64 kept), d_state 128 -> 32, chunk 256 -> 16 (so the 64-token input is
chunked), vocab 32000 -> 1000. Inputs: input_ids (2, 64), attention_mask with the second sample left-padded (the
Mistral tokenizer pads left). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Zamba2Config, Zamba2ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Zamba2ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, :4] = 0  # pad
    attention_mask[1, :4] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Zyphra/Zamba2-1.2B config.json. Kept: num_mem_blocks 1, use_shared_attention_adapter, use_mem_rope,
    # gelu MLP, mamba d_conv 4 / expand 2 / ngroups 1, conv bias on, no linear bias, rms_norm_eps 1e-5,
    # rope_theta 1e4, tied embeddings, pad 0 / bos 1 / eos 2.
    return [Zamba2Config(
        vocab_size=vocab_size,  # published 32000
        hidden_size=128,  # published 2048
        num_hidden_layers=4,  # published 38
        layers_block_type=["mamba", "hybrid", "mamba", "hybrid"],  # published: a hybrid layer every 6th
        num_attention_heads=4,  # published 32
        intermediate_size=512,  # published 8192
        num_mem_blocks=1,
        use_shared_attention_adapter=True,
        adapter_rank=16,  # published 128
        use_mem_rope=True,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        n_mamba_heads=4,  # published 64
        mamba_d_state=32,  # published 128
        mamba_d_conv=4,
        mamba_expand=2,
        mamba_ngroups=1,
        chunk_size=16,  # published 256
        use_conv_bias=True,
        add_bias_linear=False,
        hidden_act="gelu",
        rms_norm_eps=1e-5,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )]
