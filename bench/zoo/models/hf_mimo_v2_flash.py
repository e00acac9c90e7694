"""MiMo-V2-Flash (Xiaomi: hybrid sliding-window / global attention MoE LM). Five sliding-window layers (window 128
tokens plus the query) to one global layer, the first layer global; the sliding-window layers carry a learned
per-head attention-sink logit appended to the softmax (and dropped after it) and twice the global layers' kv heads
(GQA 8:1 there, 16:1 in the global layers); query / key heads of 192 against value heads of 128 (asymmetric head
dims, the values scaled by 0.707 = sqrt(hidden / (heads * v_head_dim))); partial RoPE on the first 1/3 of each
query / key head (theta 1e4 local, 5e6 global); the first layer a dense SwiGLU MLP, every later one a
DeepSeek-V3-style MoE without a shared expert: sigmoid router scores in fp32, top-k chosen on scores plus a
per-expert correction bias, the chosen scores renormalised; RMSNorm; untied LM head), after
`XiaomiMiMo/MiMo-V2-Flash`, shrunk (the multi-token-prediction layers of the checkpoint are not part of the model).

MiMoV2FlashForCausalLM (eager attention: the model takes no SDPA, which has no sink).
Shrunk: hidden 4096 -> 128, 48 layers -> 4 (global + dense, then three sliding-window + MoE: the head of the
published pattern), 64 heads -> 8, 4 kv heads -> 1 (2 in the sliding-window layers, doubled as published),
head_dim 192 -> 48 and v_head_dim 128 -> 32 (the 3:2 ratio kept, so attention_value_scale 0.707 still equals
sqrt(hidden / (heads * v_head_dim))), RoPE on 16 of 48 dims (partial_rotary_factor 0.334 kept), dense
intermediate 16384 -> 512, moe_intermediate 2048 -> 64, 256 routed experts -> 8, top-8 -> top-2,
sliding_window 129 -> 33 (32 tokens plus the query, on a 96-token input so the window is active),
vocab 152576 -> 1000.
Inputs: input_ids (2, 96), attention_mask with the second sample right-padded by 9 tokens.
Output: LM logits (2, 96, 1000).
"""
import torch
from torch import nn
from transformers import MiMoV2FlashConfig, MiMoV2FlashForCausalLM

batch_size = 2
seq_len = 96
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MiMoV2FlashForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -9:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # XiaomiMiMo/MiMo-V2-Flash (the MiMoV2FlashConfig defaults). Kept: silu, rms_norm_eps 1e-5, no attention
    # bias, attention_value_scale 0.707, n_group = topk_group = 1, norm_topk_prob, routed_scaling_factor 1.0,
    # layer pattern (global at layer 0 and every 6th, the rest sliding) and MLP pattern (layer 0 dense, the rest
    # MoE) from their defaults, RoPE theta 1e4 sliding / 5e6 global with partial_rotary_factor 0.334,
    # max_position_embeddings 131072, untied LM head, bos 1.
    return [MiMoV2FlashConfig(
        vocab_size=vocab_size,  # published 152576
        hidden_size=128,  # published 4096
        intermediate_size=512,  # published 16384
        num_hidden_layers=4,  # published 48
        num_attention_heads=8,  # published 64
        num_key_value_heads=1,  # published 4 (doubled in the sliding-window layers)
        head_dim=48,  # published 192
        v_head_dim=32,  # published 128
        moe_intermediate_size=64,  # published 2048
        n_routed_experts=8,  # published 256
        num_experts_per_tok=2,  # published 8
        sliding_window=33,  # published 129 (sliding_window_size 128 + the query)
    )]
