"""gpt-oss MoE LM (GQA with biased q/k/v/o projections and a learned per-head attention sink logit appended to
the softmax, layers alternating sliding-window / full attention, YaRN RoPE; every layer a top-k routed MoE
whose router softmaxes over the selected experts only, experts with biased gate_up / down projections and a
clamped SwiGLU (alpha 1.702, limit 7); RMSNorm; untied LM head), after `openai/gpt-oss-20b`, shrunk.

GptOssForCausalLM (eager attention: this model does not take SDPA, which has no sink; the library's default
grouped_mm experts). Fp32 weights, where the published checkpoint stores the experts in MXFP4. The window is
shrunk from 128 to 16 tokens on a 64-token input, so it bites.
Shrunk: hidden 2880 -> 128, 24 layers -> 2 (sliding, full: the published pattern's first pair), 64 heads -> 16,
8 kv heads -> 2 (8 query heads per kv head kept), head_dim 64 -> 16, 32 experts -> 4, top-4 -> top-2,
expert intermediate 2880 -> 128 (= hidden, as published), sliding_window 128 -> 16, vocab 201088 -> 1000
(<|endoftext|> 199999 -> 999, <|return|> 200002 -> 998).
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad = <|endoftext|>).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import GptOssConfig, GptOssForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 999  # <|endoftext|>


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GptOssForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, 990, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # openai/gpt-oss-20b config.json. Kept: attention_bias, silu (clamped SwiGLU, swiglu_limit 7.0),
    # rms_norm_eps 1e-5, YaRN RoPE (theta 150000, factor 32, beta_fast 32, beta_slow 1, original
    # max positions 4096, no truncation), max_position_embeddings 131072, initializer_range 0.02,
    # router_aux_loss_coef 0.9, no router logits output, untied LM head.
    return [GptOssConfig(
        vocab_size=vocab_size,  # published 201088
        hidden_size=128,  # published 2880
        intermediate_size=128,  # published 2880
        num_hidden_layers=2,  # published 24
        num_attention_heads=16,  # published 64
        num_key_value_heads=2,  # published 8
        head_dim=16,  # published 64
        num_local_experts=4,  # published 32
        num_experts_per_tok=2,  # published 4
        sliding_window=16,  # published 128
        layer_types=["sliding_attention", "full_attention"],  # published: this pair x 12
        hidden_act="silu",
        swiglu_limit=7.0,
        attention_bias=True,
        attention_dropout=0.0,
        rms_norm_eps=1e-5,
        max_position_embeddings=131072,
        rope_parameters={
            "rope_type": "yarn",
            "rope_theta": 150000.0,
            "factor": 32.0,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "truncate": False,
            "original_max_position_embeddings": 4096,
        },
        initializer_range=0.02,
        router_aux_loss_coef=0.9,
        output_router_logits=False,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,  # published 199999
        eos_token_id=998,  # published 200002
    )]
