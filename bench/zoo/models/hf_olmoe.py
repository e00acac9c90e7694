"""OLMoE (Llama-style decoder with RMSNorm on the full q and k projections, and a sparse MoE MLP in every layer:
softmax router, top-k experts, no renormalisation of the top-k weights), after `allenai/OLMoE-1B-7B-0924`, shrunk.

Shrunk: hidden 2048 -> 128, 16 layers -> 2, 16 heads -> 4, expert intermediate 1024 -> 64, 64 experts -> 8,
top-8 -> top-2, vocab 50304 -> 1000. Inputs: input_ids (2, 64), attention_mask with the second sample
right-padded. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import OlmoeConfig, OlmoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = OlmoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = 1  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # allenai/OLMoE-1B-7B-0924 config.json. Kept: norm_topk_prob False, router_aux_loss_coef 0.01, silu,
    # rms_norm_eps 1e-5, rope_theta 1e4, clip_qkv None, no attention bias, MHA (kv heads = heads),
    # untied head, max_position_embeddings 4096, pad 1.
    return [OlmoeConfig(
        vocab_size=vocab_size,  # published 50304
        hidden_size=128,  # published 2048
        intermediate_size=64,  # published 1024 (per expert)
        num_hidden_layers=2,  # published 16
        num_attention_heads=4,  # published 16
        num_key_value_heads=4,  # published 16
        num_experts=8,  # published 64
        num_experts_per_tok=2,  # published 8
        norm_topk_prob=False,
        router_aux_loss_coef=0.01,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        hidden_act="silu",
        rms_norm_eps=1e-5,
        clip_qkv=None,
        attention_bias=False,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        pad_token_id=1,
        bos_token_id=None,
        eos_token_id=999,  # published 50279
    )]
