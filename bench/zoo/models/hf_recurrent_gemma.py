"""RecurrentGemma / Griffin (RG-LRU recurrent blocks + local sliding-window MQA attention, pattern
recurrent, recurrent, attention), after `google/recurrentgemma-2b`, shrunk.

3 layers = one full block pattern (2 recurrent + 1 local attention). The attention window is shrunk to 16 and
the sequence is 48 tokens, so the window matters.
Shrunk: hidden / lru_width 2560 -> 128, 26 layers -> 3, 10 heads -> 4 (head_dim 256 -> 32; 1 kv head kept),
intermediate 15360 -> 768 (6 x hidden kept; the MLP uses half of it), attention_window_size 2048 -> 16,
vocab 256000 -> 1000.
Inputs: input_ids (2, 48), attention_mask with the second sample left-padded (Gemma's tokenizer pads left).
Output: LM logits (2, 48, 1000), soft-capped at 30.
"""
import torch
from torch import nn
from transformers import RecurrentGemmaConfig, RecurrentGemmaForCausalLM

batch_size = 2
seq_len = 48
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = RecurrentGemmaForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, :5] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # google/recurrentgemma-2b config.json. Kept: block_types, conv1d_width 4, logits_soft_cap 30,
    # gelu_pytorch_tanh, rms_norm_eps 1e-6, rope_theta 1e4 with partial_rotary_factor 0.5, no attention bias,
    # w_init_variance_scale 0.01, tied head, pad 0 / eos 1 / bos 2.
    return [RecurrentGemmaConfig(
        vocab_size=vocab_size,  # published 256000
        hidden_size=128,  # published 2560
        lru_width=128,  # published 2560 (= hidden)
        intermediate_size=768,  # published 15360
        num_hidden_layers=3,  # published 26
        num_attention_heads=4,  # published 10
        num_key_value_heads=1,
        attention_window_size=16,  # published 2048
        block_types=["recurrent", "recurrent", "attention"],
        conv1d_width=4,
        logits_soft_cap=30.0,
        hidden_activation="gelu_pytorch_tanh",
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
        attention_bias=False,
        w_init_variance_scale=0.01,
    )]
