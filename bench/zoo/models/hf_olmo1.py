"""OLMo 1 decoder LM (Groeneveld et al. 2024, "OLMo: Accelerating the Science of Language Models",
arXiv 2402.00838), after `allenai/OLMo-1B-hf`, shrunk.

OlmoForCausalLM. Llama-style pre-norm blocks, but every norm (the two per block and the final one) is a
*non-parametric* LayerNorm: F.layer_norm in float32 with no weight and no bias (eps fixed at 1e-5). Full multi-head
attention without biases, RoPE (theta 1e4, half-split rotate_half), with clip_qkv: the q, k and v projection outputs
are clamped in place to [-clip_qkv, clip_qkv] before the split into heads. SwiGLU MLP. LM head tied to the embedding.
Shrunk: hidden 2048 -> 256, 16 layers -> 2, 16 heads -> 8 (MHA kept), head_dim 128 -> 32, intermediate 8192 -> 1024
(the published 4x hidden kept), vocab 50304 -> 1000.
One field differs from OLMo-1B-hf on purpose: clip_qkv is None there (no clamp); it is set to 8.0, the value of the
OLMo 1.7 release (`allenai/OLMo-7B-0424-hf`), so that the clip_qkv clamp of this family is in the graph. With the
library's init (std 0.02) the projections stay far inside [-8, 8], so the clamp does not bind at this size.
Inputs: input_ids (2, 64) (no bos: the tokenizer adds none), attention_mask with the second sample right-padded by
5 tokens with <|padding|> (id 1, as published). The published eos (<|endoftext|> = 50279) lies outside the shrunk
vocab, so it is remapped to 0. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import OlmoConfig, OlmoForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 1
eos_token_id = 0  # published 50279


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = OlmoForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # allenai/OLMo-1B-hf config.json. Kept: silu, rope_theta 1e4, no rope scaling, max_position_embeddings 2048,
    # no attention bias, attention_dropout 0, initializer_range 0.02, tied embeddings, pad 1, no bos.
    return [OlmoConfig(
        vocab_size=vocab_size,  # published 50304
        hidden_size=256,  # published 2048
        intermediate_size=1024,  # published 8192
        num_hidden_layers=2,  # published 16
        num_attention_heads=8,  # published 16
        num_key_value_heads=8,  # published 16
        hidden_act="silu",
        max_position_embeddings=2048,
        initializer_range=0.02,
        pad_token_id=pad_token_id,
        bos_token_id=None,
        eos_token_id=eos_token_id,  # published 50279
        tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        attention_bias=False,
        attention_dropout=0.0,
        clip_qkv=8.0,  # published None in OLMo-1B-hf; 8.0 as in allenai/OLMo-7B-0424-hf
    )]
