"""GLM-4-0414 decoder LM, after `THUDM/GLM-4-9B-0414`, shrunk.

Glm4ForCausalLM. GQA attention with biased q / k / v projections (bias-free output projection) and partial RoPE:
only the first half of each head's dims is rotated, as interleaved pairs (cos / sin repeat-interleaved), the other
half passes through. Each block is "sandwich"-normed: x = x + RMSNorm(attn(RMSNorm(x))); x = x + RMSNorm(mlp(RMSNorm(x)))
(post_self_attn_layernorm and post_mlp_layernorm after the sub-layers as well as the usual pre-norms). The MLP is a
SwiGLU with one fused gate_up projection. Final RMSNorm, untied LM head.

Shrunk: hidden 4096 -> 128, 40 layers -> 2, 32 heads -> 4 (2 kv heads kept), head_dim 128 -> 32 (rotary dims
64 -> 16), intermediate 13696 -> 428 (the published 3.34x kept), vocab 151552 -> 1000 (special ids 151329 + k ->
990 + k: <|endoftext|> 990, <|user|> 997, <|observation|> 999).
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad = <|endoftext|>).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Glm4Config, Glm4ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 990  # <|endoftext|>, published 151329


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Glm4ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, 990, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # THUDM/GLM-4-9B-0414 config.json. Kept: silu, 2 kv heads, attention_bias (q / k / v), partial_rotary_factor 0.5,
    # rope_theta 10000, rms_norm_eps 1e-5, max_position_embeddings 32768, no dropout, initializer_range 0.02,
    # untied LM head.
    return [Glm4Config(
        vocab_size=vocab_size,  # published 151552
        hidden_size=128,  # published 4096
        intermediate_size=428,  # published 13696
        num_hidden_layers=2,  # published 40
        num_attention_heads=4,  # published 32
        head_dim=32,  # published 128
        max_position_embeddings=32768,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
        pad_token_id=pad_token_id,  # published 151329
        eos_token_id=[990, 997, 999],  # published [151329, 151336, 151338]
    )]
