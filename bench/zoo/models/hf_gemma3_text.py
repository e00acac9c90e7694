"""Gemma 3 text model (5:1 interleaved sliding-window / global attention, QK-RMSNorm, separate RoPE bases for local
(10k) and global (1M) layers, sandwich RMSNorms, MQA, scaled embeddings, tied LM head), after `google/gemma-3-1b-pt`,
shrunk.

Gemma3ForCausalLM. The published pattern is 5 sliding layers then 1 global layer (sliding_window_pattern 6); here
4 layers = 3 sliding + 1 global, with the window shrunk to 16 tokens on a 48-token input, so the window bites.
Shrunk: hidden 1152 -> 128, 26 layers -> 4, 4 heads kept, 1 kv head kept (MQA), head_dim 256 -> 32
(query_pre_attn_scalar 256 -> 32, published = head_dim), intermediate 6912 -> 512, sliding_window 512 -> 16,
vocab 262144 -> 1000.
Inputs: input_ids (2, 48), attention_mask with the second sample left-padded (Gemma's tokenizer pads left).
Output: LM logits (2, 48, 1000).
"""
import torch
from torch import nn
from transformers import Gemma3TextConfig, Gemma3ForCausalLM

batch_size = 2
seq_len = 48
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Gemma3ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, :5] = 0  # pad
    attention_mask[1, :5] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # google/gemma-3-1b-pt config.json. Kept: gelu_pytorch_tanh, rms_norm_eps 1e-6, rope_theta 1e6 (global) and
    # rope_local_base_freq 1e4 (sliding), no soft-capping (attn/final null), no attention bias, tied head,
    # max_position_embeddings 32768, pad 0 / eos 1 / bos 2.
    return [Gemma3TextConfig(
        vocab_size=vocab_size,  # published 262144
        hidden_size=128,  # published 1152
        intermediate_size=512,  # published 6912
        num_hidden_layers=4,  # published 26
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=32,  # published 256
        query_pre_attn_scalar=32,  # published 256 (= head_dim)
        sliding_window=16,  # published 512
        layer_types=["sliding_attention"] * 3 + ["full_attention"],  # published 5 sliding : 1 full
        rope_parameters={
            "full_attention": {"rope_type": "default", "rope_theta": 1_000_000.0},
            "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
        },
        attn_logit_softcapping=None,
        final_logit_softcapping=None,
        hidden_activation="gelu_pytorch_tanh",
        rms_norm_eps=1e-6,
        attention_bias=False,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=2,
    )]
