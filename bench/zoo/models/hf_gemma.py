"""Gemma 1 decoder LM (Gemma Team 2024, "Gemma: Open Models Based on Gemini Research and Technology"), after
`google/gemma-2b`, shrunk.

GemmaForCausalLM. Llama-style pre-norm blocks with the Gemma specifics: the token embeddings are multiplied by
sqrt(hidden_size) (the normalizer is cast to the activation dtype first), every RMSNorm scales by (1 + weight) with
the weight stored zero-centred, multi-query attention (8 query heads share 1 key/value head) with RoPE (theta 1e4),
a GeGLU MLP (gate and up projections, tanh-approximated GELU on the gate: the published hidden_act "gelu" is the
legacy name that GemmaConfig maps to "gelu_pytorch_tanh"), a final RMSNorm, and the LM head tied to the embedding.
Shrunk: hidden 2048 -> 256, 18 layers -> 2, head_dim 256 -> 32 (8 heads x head_dim = hidden kept, as published),
intermediate 16384 -> 2048 (the published 8x hidden kept), vocab 256000 -> 1000. 8 query heads and the single
key/value head (MQA) are kept.
Inputs: input_ids (2, 64) starting with <bos> (id 2; the tokenizer's add_bos_token is on), attention_mask with the
second sample right-padded by 6 tokens with <pad> (id 0). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import GemmaConfig, GemmaForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0
eos_token_id = 1
bos_token_id = 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GemmaForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -6:] = pad_token_id  # pad
    attention_mask[1, -6:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # google/gemma-2b config.json. Kept: 8 heads, 1 kv head, rms_norm_eps 1e-6, rope_theta 1e4, no rope scaling,
    # max_position_embeddings 8192, no attention bias, attention_dropout 0, initializer_range 0.02, tied embeddings,
    # pad 0 / eos 1 / bos 2.
    return [GemmaConfig(
        vocab_size=vocab_size,  # published 256000
        hidden_size=256,  # published 2048
        intermediate_size=2048,  # published 16384
        num_hidden_layers=2,  # published 18
        num_attention_heads=8,
        num_key_value_heads=1,
        head_dim=32,  # published 256
        hidden_act="gelu_pytorch_tanh",  # published "gelu": the legacy name GemmaConfig rewrites to this
        max_position_embeddings=8192,
        initializer_range=0.02,
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        attention_bias=False,
        attention_dropout=0.0,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
        bos_token_id=bos_token_id,
    )]
