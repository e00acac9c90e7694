"""MiniMax-Text-01 hybrid MoE LM (lightning linear attention + softmax attention), after `MiniMaxAI/MiniMax-Text-01`
(the transformers port, `MiniMaxAI/MiniMax-Text-01-hf`), shrunk.

MiniMaxForCausalLM. Layers repeat a period of 8: seven lightning-attention layers, then one softmax-attention layer.
Lightning attention: one fused qkv projection + SiLU (padded positions zeroed), then per head a causal linear
attention with exponential decay, computed blockwise: inside a block_size block (Q K^T * decay mask) V, across blocks
a carried K^T V state decayed per block; decay slopes are ALiBi-style per head (base 2^(-8 / heads)) and scaled down
with depth (1 - layer / (layers - 1)); the output is RMSNorm'd over all heads, gated by sigmoid(W_g x) and projected.
Softmax layers: GQA with RoPE (theta 1e7) over the full head (the transformers port has no partial-rotary field; the
original remote code rotates 64 of the 128 dims). The blocks are post-norm DeepNorm-style: x = RMSNorm(x);
x = alpha * x + beta * mixer(x); x = RMSNorm(x); x = alpha * x + beta * MoE(x) (alpha 3.5566 = (2 * 80)^(1/4), the
published value kept, beta 1). Every FFN is a softmax top-2 MoE (renormalized top-2 weights) of SwiGLU experts, no
shared expert. Final RMSNorm, untied LM head.

Shrunk: hidden 6144 -> 128, 80 layers -> 8 (one period: 7 lightning, 1 softmax, as in the published attn_type_list),
64 heads -> 4, 8 kv heads -> 2, head_dim 128 -> 32, 32 experts -> 8 (top-2 kept), expert intermediate 9216 -> 192
(the published 1.5x hidden kept), block_size 256 -> 16 (the 64-token input spans 4 blocks, so the inter-block
state is used), vocab 200064 -> 1000. The slopes' per-head base and depth scaling follow the shrunk head and layer
counts. Special-token ids are not reproduced (the config's defaults are kept); the padded positions hold id 0.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens.
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import MiniMaxConfig, MiniMaxForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MiniMaxForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # MiniMaxAI/MiniMax-Text-01-hf config.json. Kept: silu, rms_norm_eps 1e-5, rope_theta 1e7, no sliding window,
    # top-2 routing, router_aux_loss_coef 0.001, no router jitter, DeepNorm factors (alpha 3.5566 for the lightning,
    # softmax and MoE residuals, beta 1), max_position_embeddings 10240000, initializer_range 0.02, untied LM head.
    return [MiniMaxConfig(
        vocab_size=vocab_size,  # published 200064
        hidden_size=128,  # published 6144
        intermediate_size=192,  # published 9216
        num_hidden_layers=8,  # published 80
        num_attention_heads=4,  # published 64
        num_key_value_heads=2,  # published 8
        head_dim=32,  # published 128
        num_local_experts=8,  # published 32
        layer_types=["linear_attention"] * 7 + ["full_attention"],  # published: this period x 10
        block_size=16,  # published 256
        full_attn_alpha_factor=3.5565588200778455,
        linear_attn_alpha_factor=3.5565588200778455,
        mlp_alpha_factor=3.5565588200778455,
        max_position_embeddings=10240000,
        rope_parameters={"rope_type": "default", "rope_theta": 10000000.0},
    )]
