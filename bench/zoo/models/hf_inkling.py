"""Inkling MoE decoder LM (Thinking Machines: a position-embedding-free transformer whose attention position
signal is a hidden-state-conditioned relative bias: each query projects to d_rel = 16 "relative states" per head,
which mix a learned bank of bias-versus-distance profiles (d_rel x rel_extent) into one additive logit per
backward distance (zero beyond rel_extent); keys and values pass through causal depthwise short convolutions
(kernel 4, fp32) before per-head RMS q/k-norm with 1/head_dim scaling; the attention output and the MLP output
each pass through another causal short convolution before their residual adds; RMS-normalised token embeddings;
every layer an MoE with a sigmoid router that also scores the 2 shared experts ("shared-expert sink": the top-6
routed plus the shared logits are renormalised together via log-sigmoid / logsumexp and scaled by 8); sliding-window
(512) and full attention layers interleaved 5:1 with separate head counts; muP division of the final state by 24
before the untied LM head), after `thinkingmachines/Inkling` (the text model), shrunk.

InklingForCausalLM (sdpa, which adds the relative bias to the mask; use_cache left at its default, so the 4 conv
states per layer and the KV cache are filled as in a prefill).
Shrunk: hidden 6144 -> 128, 66 layers -> 2 (layer 0 sliding window, layer 1 full), heads 64 / kv 8 (full) and
64 / kv 16 (sliding) -> 4 / 2 and 4 / 2, head_dim 128 -> 32, sliding window 512 -> 32 and rel_extent 1024 -> 48
(so that, on 64 tokens, both the window and the zero-bias tail are exercised), 256 routed experts -> 8 (top-6 ->
top-2), 2 shared experts kept, moe_intermediate 3072 -> 64, vocab 201024 -> 1024.
Kept: d_rel 16, conv kernel 4, route_scale 8, logits muP multiplier 24, rms_norm_eps 1e-6, shared-expert sink.
Inputs: input_ids (2, 64) with bos 1; attention_mask with the second sample right-padded by 8 tokens (the padded
positions are also zeroed before every short convolution). Output: LM logits (2, 64, 1024).
"""
import torch
from torch import nn
from transformers import InklingForCausalLM
from transformers.models.inkling.configuration_inkling import InklingTextConfig

batch_size = 2
seq_len = 64
vocab_size = 1024
pad_token_id = 0
bos_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = InklingForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[-1, -8:] = pad_token_id  # the last sample right-padded
    attention_mask[-1, -8:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # thinkingmachines/Inkling (InklingTextConfig defaults). Kept: d_rel 16, conv_kernel_size 4, n_shared_experts 2,
    # shared_expert_sink, route_scale 8, logits_mup_width_multiplier 24, silu, all layers sparse (no dense prefix),
    # bos 1 / eos 2, no log-scaling of the logits.
    return [InklingTextConfig(
        vocab_size=vocab_size,  # published 201024
        hidden_size=128,  # published 6144
        num_hidden_layers=2,  # published 66
        local_layer_ids=[0],  # published: every layer but each 6th
        num_attention_heads=4,  # published 64
        num_key_value_heads=2,  # published 8
        head_dim=32,  # published 128
        swa_num_attention_heads=4,  # published 64
        swa_num_key_value_heads=2,  # published 16
        swa_head_dim=32,  # published 128
        sliding_window_size=32,  # published 512
        rel_extent=48,  # published 1024
        intermediate_size=256,  # dense MLP width (unused: every layer is MoE)
        moe_intermediate_size=64,  # published 3072
        n_routed_experts=8,  # published 256
        num_experts_per_tok=2,  # published 6
        pad_token_id=pad_token_id,
    )]
