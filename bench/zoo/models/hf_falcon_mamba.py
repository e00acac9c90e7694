"""Falcon-Mamba language model (attention-free stack of pure Mamba-1 blocks: RMSNorm -> in_proj to the SSM input and
a gate, causal depthwise conv1d (kernel 4) + SiLU, x_proj to a low-rank dt and input-dependent B and C, then the
Falcon-Mamba change: weight-free RMSNorms (eps 1e-6) on dt, B and C before dt_proj and the selective scan (the
modules hold dummy scale weights, kept only to mirror the fused kernel's signature, which the torch path never
reads), softplus(dt + bias) discretization of A = -exp(A_log) (state 16 per channel), selective scan
with skip D, SiLU-gated output, out_proj; residual kept in fp32; final RMSNorm; untied LM head), after
`tiiuae/falcon-mamba-7b`, shrunk. Without the CUDA kernels (here: CPU) the mixer runs its slow path: the scan is an
explicit Python loop over the sequence.

FalconMambaForCausalLM.
Shrunk: hidden 4096 -> 128, 64 layers -> 2, intermediate 8192 -> 256 (2x hidden kept), time_step_rank 256 -> 8
(hidden / 16 kept), vocab 65024 -> 1000. Kept: state 16, conv kernel 4.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens; the pad token is the
published <|endoftext|> = 11 (= eos), inside the shrunk vocab. The mask zeroes the padded positions' activations
before the in-projection and before the scan. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import FalconMambaConfig, FalconMambaForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 11  # <|endoftext|>, also eos


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = FalconMambaForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(12, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # tiiuae/falcon-mamba-7b config.json. Kept: state_size 16, conv_kernel 4, intermediate = 2x hidden, silu,
    # layer_norm_epsilon 1e-5, mixer_rms_eps 1e-6, no in/out projection bias, conv bias on, residual_in_fp32,
    # time-step init (random, min 1e-3, max 0.1, floor 1e-4, scale 1), initializer_range 0.1, untied head,
    # bos 0, eos / pad 11.
    return [FalconMambaConfig(
        vocab_size=vocab_size,  # published 65024
        hidden_size=128,  # published 4096
        num_hidden_layers=2,  # published 64
        state_size=16,
        expand=2,  # intermediate 256; published 8192
        conv_kernel=4,
        time_step_rank=8,  # published 256
        use_bias=False,
        use_conv_bias=True,
        hidden_act="silu",
        layer_norm_epsilon=1e-5,
        mixer_rms_eps=1e-6,
        residual_in_fp32=True,
        initializer_range=0.1,
        tie_word_embeddings=False,
        bos_token_id=0,
        eos_token_id=pad_token_id,
        pad_token_id=pad_token_id,
    )]
