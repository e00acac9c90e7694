"""Dory (NVIDIA Nemotron-Labs Dory 1.0: an nGPT "normalized Transformer" with a looped middle section). Every hidden
state lives on the unit sphere: L2 normalisation (norm 1, not RMS 1) in place of RMSNorm before and after each
attention and MLP ("sandwich"), and the residual update is an interpolation towards the normalised branch output,
h_new = h + |lambda| * (branch - h), at learned per-channel rates, instead of an addition. Attention: GQA 4:1 with
head_dim 256, queries and keys L2-normalised per head, RoPE, the queries then rescaled per channel by a learned
s_qk^2 (so the softmax temperature is learned), a sigmoid output gate with a learned scale, and an L2 sub-norm
before o_proj; SwiGLU MLP with learned per-channel s_u / s_v scales and an L2 sub-norm before down_proj; three
sliding-window (1024) layers to one full-attention layer (RoPE theta 1e4 local / 1e7 global). Depth recurrence: the
input layers run once, then the recurrent section runs n_recurrent_loops = 2 times (each loop re-normalises the
state and adds the normalised input-section output), then the output layers; an untied LM head with a learned
per-token logit scale), after `nvidia/NVIDIA-Nemotron-Labs-Dory1.0-4B-BF16`, shrunk.

DoryForCausalLM (sdpa attention; use_cache left at its default, so each recurrent loop writes its own KV cache
layers, the published "per_loop" mode).
Shrunk: hidden 2560 -> 128, 36 layers (8 input, 20 recurrent, 8 output) -> 4 (1 input, 2 recurrent, 1 output,
so the 2 loops run 4 recurrent layer passes), layer types sliding, sliding, full, full (the published 3:1
pattern cut to 4 layers keeping a full-attention layer inside the loop and as the last layer, as published),
16 heads -> 4, 4 kv heads -> 1, head_dim 256 -> 32, intermediate 7168 -> 384, sliding_window 1024 -> 32 (so on
a 64-token input the window is active), vocab 131072 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 7 tokens.
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import DoryConfig, DoryForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DoryForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -7:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # nvidia/NVIDIA-Nemotron-Labs-Dory1.0-4B-BF16 (the DoryConfig defaults). Kept: silu, no biases,
    # initializer_range 0.0177 (the nGPT scale parameters are stored as s and used as s * s_init / 0.0177),
    # ngpt_alpha_init 0.05, n_recurrent_loops 2 with "per_loop" KV caches, RoPE theta 1e4 (sliding) / 1e7 (full),
    # max_position_embeddings 8192, untied LM head.
    return [DoryConfig(
        vocab_size=vocab_size,  # published 131072
        hidden_size=128,  # published 2560
        intermediate_size=384,  # published 7168
        num_hidden_layers=4,  # published 36
        num_attention_heads=4,  # published 16
        num_key_value_heads=1,  # published 4
        head_dim=32,  # published 256
        sliding_window=32,  # published 1024
        n_input_layers=1,  # published 8
        n_output_layers=1,  # published 8 (n_recurrent_layers: the rest, 2; published 20)
        layer_types=["sliding_attention", "sliding_attention", "full_attention", "full_attention"],
    )]
