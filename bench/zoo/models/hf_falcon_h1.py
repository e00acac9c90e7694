"""Falcon-H1 hybrid-head LM (every layer runs a GQA attention branch and a Mamba2 SSM branch in parallel on the
same pre-RMSNorm input and sums them, then a SwiGLU MLP; muP multipliers scale the embedding, attention
in / key / out, the SSM in / out, the in_proj segments (z, x, B, C, dt) of the mixer, the MLP gate / down and
the LM head), after `tiiuae/Falcon-H1-0.5B-Base`, shrunk.

FalconH1ForCausalLM. mamba_ssm / causal_conv1d are not installed, so the mixer runs the library's torch
fallback (chunked SSD scan, depthwise conv1d), the path taken on CPU.
Shrunk: hidden 1024 -> 128, 36 layers -> 2, 8 heads -> 4, 2 kv heads kept, head_dim 64 -> 32,
intermediate 2048 -> 256 (2x kept), mamba_d_ssm 1536 -> 192 (1.5x hidden kept), 24 mamba heads -> 6,
mamba head dim 64 -> 32, d_state 128 -> 16, mamba chunk 128 -> 16 (so the 64-token input is chunked),
vocab 32784 -> 1000. The muP multipliers are kept at their published values.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad = 0).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import FalconH1Config, FalconH1ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = FalconH1ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(12, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # tiiuae/Falcon-H1-0.5B-Base config.json. Kept: silu, rms_norm_eps 1e-5, rope_theta 1e11, no biases
    # (attention, mlp, projectors, mamba in_proj), mamba conv bias, d_conv 4, n_groups 1, expand 2, no gated
    # RMSNorm in the mixer, max_position_embeddings 131072, untied LM head, pad 0 / bos 1 / eos 11, and all
    # muP multipliers.
    return [FalconH1Config(
        vocab_size=vocab_size,  # published 32784
        hidden_size=128,  # published 1024
        intermediate_size=256,  # published 2048
        num_hidden_layers=2,  # published 36
        num_attention_heads=4,  # published 8
        num_key_value_heads=2,
        head_dim=32,  # published 64
        hidden_act="silu",
        initializer_range=0.02,
        rms_norm_eps=1e-5,
        max_position_embeddings=131072,
        rope_parameters={"rope_type": "default", "rope_theta": 100000000000.0},
        attention_bias=False,
        mlp_bias=False,
        projectors_bias=False,
        mamba_d_ssm=192,  # published 1536
        mamba_n_heads=6,  # published 24
        mamba_d_head=32,  # published 64
        mamba_n_groups=1,
        mamba_d_state=16,  # published 128
        mamba_d_conv=4,
        mamba_expand=2,
        mamba_chunk_size=16,  # published 128
        mamba_conv_bias=True,
        mamba_proj_bias=False,
        mamba_norm_before_gate=False,
        mamba_rms_norm=False,
        embedding_multiplier=5.656854249492381,
        lm_head_multiplier=0.0390625,
        attention_in_multiplier=1.0,
        attention_out_multiplier=0.9375,
        key_multiplier=0.390625,
        ssm_in_multiplier=1.25,
        ssm_out_multiplier=0.23570226039551587,
        ssm_multipliers=[0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738],
        mlp_multipliers=[0.8838834764831844, 0.5859375],
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,
        bos_token_id=1,
        eos_token_id=11,
    )]
