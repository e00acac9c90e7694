"""Persimmon-8B decoder LM (Adept 2023, "Releasing Persimmon-8B"), after `adept/persimmon-8b-base`, shrunk.

PersimmonForCausalLM. Pre-LayerNorm blocks (LayerNorms with bias, eps 1e-5) of full multi-head attention with
- one fused query_key_value projection (with bias) split per head into q, k, v;
- qk layernorm: a LayerNorm over head_dim (weight and bias, shared across heads) applied to q and to k before RoPE;
- partial rotary embeddings: RoPE (theta 25000) on the first half of each head's dims (partial_rotary_factor 0.5),
  the other half passed through unrotated;
- a dense output projection with bias;
and a non-gated MLP with squared-ReLU activation (relu2: relu(x)^2) between two biased projections. Final LayerNorm,
untied LM head without bias.
Shrunk: hidden 4096 -> 256, 36 layers -> 2, 64 heads -> 4 (head_dim 64 kept, so 32 rotary dims per head as
published), intermediate 16384 -> 1024 (the published 4x hidden kept), vocab 262144 -> 1000.
Inputs: input_ids (2, 64) starting with the bos token, attention_mask with the second sample right-padded by
5 tokens. The published bos = eos (|ENDOFTEXT| = 71013) lies outside the shrunk vocab, so it is remapped to 1; the
tokenizer has no pad token, so the tail is padded with eos (pad = eos, as users set it).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import PersimmonConfig, PersimmonForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = 1  # published 71013
eos_token_id = 1  # published 71013
pad_token_id = eos_token_id  # no pad token published; pad = eos


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PersimmonForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # adept/persimmon-8b-base config.json. Kept: relu2, qk_layernorm, partial_rotary_factor 0.5, rope_theta 25000,
    # no rope scaling, layer_norm_eps 1e-5, max_position_embeddings 16384, hidden_dropout 0.6 (inactive in eval),
    # attention_dropout 0, initializer_range 0.02, untied head.
    return [PersimmonConfig(
        vocab_size=vocab_size,  # published 262144
        hidden_size=256,  # published 4096
        intermediate_size=1024,  # published 16384
        num_hidden_layers=2,  # published 36
        num_attention_heads=4,  # published 64
        hidden_act="relu2",
        max_position_embeddings=16384,
        initializer_range=0.02,
        layer_norm_eps=1e-5,
        tie_word_embeddings=False,
        rope_parameters={"rope_type": "default", "rope_theta": 25000.0, "partial_rotary_factor": 0.5},
        qk_layernorm=True,
        hidden_dropout=0.6,
        attention_dropout=0.0,
        pad_token_id=pad_token_id,  # published None
        bos_token_id=bos_token_id,  # published 71013
        eos_token_id=eos_token_id,  # published 71013
    )]
