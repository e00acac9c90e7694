"""AFMoE (Arcee's Trinity MoE decoder LM: interleaved local / global attention (three sliding-window layers, then
one full-attention layer; RoPE is applied only in the sliding-window layers, the global layers use no positional
encoding), grouped-query attention with RMSNorm on each head's queries and keys and a sigmoid output gate
(o_proj(attn * sigmoid(gate_proj(x)))), "sandwich" RMSNorms before and after both the attention and the MLP
inside each residual branch, muP input scaling (embeddings times sqrt(hidden)); the first layers use a dense
SwiGLU MLP, later ones a token-choice MoE: sigmoid router scores, top-k chosen on scores plus a per-expert bias,
the chosen scores renormalised and scaled by route_scale 2.826, small routed SwiGLU experts plus an always-on
shared SwiGLU expert; untied LM head), after `arcee-ai/Trinity-Mini`, shrunk.

AfmoeForCausalLM.
Shrunk: hidden 2048 -> 128, 32 layers -> 4 (num_dense_layers 2 and global_attn_every_n_layers 4 kept, so the
layers are dense+sliding, dense+sliding, MoE+sliding, MoE+full: the first block of the published pattern),
32 heads -> 8, 4 kv heads -> 2, head_dim 128 -> 32 (attention width 2 x hidden, as published), dense
intermediate 6144 -> 384, moe_intermediate 1024 -> 64, 128 routed experts -> 8, top-8 -> top-2, 1 shared expert
kept, sliding_window 2048 -> 32 (so with 64 tokens the window is active), vocab 200192 -> 1000. The library
zero-initialises the router weights (every score sigmoid(0), a pure tie); they get random values here, as a
trained checkpoint has.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 5 tokens.
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import AfmoeConfig, AfmoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = vocab_size - 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AfmoeForCausalLM(config)
        with torch.no_grad():
            for layer in self.model.model.layers:
                if layer.moe_enabled:
                    layer.mlp.router.gate.weight.normal_(0.0, config.initializer_range)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, pad_token_id, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # arcee-ai/Trinity-Mini config.json. Kept: silu, rms_norm_eps 1e-5, rope_theta 1e4 (default rope),
    # max_position_embeddings 131072, num_dense_layers 2, global_attn_every_n_layers 4, 1 shared expert,
    # route_scale 2.826 (sigmoid scores, renormalised top-k), mup_enabled True, no attention bias, untied head,
    # attention_dropout 0.
    return [AfmoeConfig(
        vocab_size=vocab_size,  # published 200192
        hidden_size=128,  # published 2048
        intermediate_size=384,  # published 6144
        moe_intermediate_size=64,  # published 1024
        num_hidden_layers=4,  # published 32
        num_dense_layers=2,
        num_attention_heads=8,  # published 32
        num_key_value_heads=2,  # published 4
        head_dim=32,  # published 128
        hidden_act="silu",
        max_position_embeddings=131072,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        num_experts=8,  # published 128
        num_experts_per_tok=2,  # published 8
        num_shared_experts=1,
        route_scale=2.826,
        global_attn_every_n_layers=4,
        sliding_window=32,  # published 2048
        mup_enabled=True,
        attention_bias=False,
        attention_dropout=0.0,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,
    )]
