"""Gemma 2 (alternating sliding-window / global attention, attention and final logit soft-capping,
query_pre_attn_scalar, sandwich RMSNorms, GQA), after `google/gemma-2-2b`, shrunk.

Layer 0 is a sliding-window layer, layer 1 a global layer (the published alternation). The window is shrunk to
16 and the sequence is 48 tokens, so the window matters.
Shrunk: hidden 2304 -> 128, 26 layers -> 2, 8 heads -> 4, 4 kv heads -> 2, head_dim 256 -> 32 (and
query_pre_attn_scalar 256 -> 32, published = head_dim), intermediate 9216 -> 512, sliding_window 4096 -> 16,
vocab 256000 -> 1000.
Inputs: input_ids (2, 48), attention_mask with the second sample left-padded (Gemma's tokenizer pads left).
Output: LM logits (2, 48, 1000), soft-capped at 30.
"""
import torch
from torch import nn
from transformers import Gemma2Config, Gemma2ForCausalLM

batch_size = 2
seq_len = 48
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Gemma2ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, :5] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # google/gemma-2-2b config.json. Kept: gelu_pytorch_tanh, rms_norm_eps 1e-6, rope_theta 1e4,
    # attn_logit_softcapping 50, final_logit_softcapping 30, sliding/full alternation, tied head,
    # pad 0 / eos 1 / bos 2, max_position_embeddings 8192.
    return [Gemma2Config(
        vocab_size=vocab_size,  # published 256000
        hidden_size=128,  # published 2304
        intermediate_size=512,  # published 9216
        num_hidden_layers=2,  # published 26
        num_attention_heads=4,  # published 8
        num_key_value_heads=2,  # published 4
        head_dim=32,  # published 256
        query_pre_attn_scalar=32,  # published 256 (= head_dim)
        sliding_window=16,  # published 4096
        layer_types=["sliding_attention", "full_attention"],
        attn_logit_softcapping=50.0,
        final_logit_softcapping=30.0,
        hidden_activation="gelu_pytorch_tanh",
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        max_position_embeddings=8192,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=2,
    )]
