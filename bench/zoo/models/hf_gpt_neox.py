"""GPT-NeoX / Pythia (fused QKV, partial rotary on 25% of each head, parallel attention + MLP residual, untied
head), after `EleutherAI/pythia-160m`, shrunk.

Shrunk: hidden 768 -> 128, 12 layers -> 2, 12 heads -> 2 (head_dim 64 kept, so 16 rotary dims as published),
intermediate 3072 -> 512, vocab 50304 -> 1000. Inputs: input_ids (2, 64), attention_mask with the second sample
right-padded. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GPTNeoXForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = 0  # Pythia has no pad token; users pad with eos (0)
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # EleutherAI/pythia-160m config.json. Kept: rotary_pct 0.25, rotary_emb_base 10000, use_parallel_residual,
    # gelu, layer_norm_eps 1e-5, attention bias, untied head, max_position_embeddings 2048, bos = eos = 0.
    return [GPTNeoXConfig(
        vocab_size=vocab_size,  # published 50304
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=2,  # published 12
        intermediate_size=512,  # published 3072
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        use_parallel_residual=True,
        hidden_act="gelu",
        layer_norm_eps=1e-5,
        attention_bias=True,
        max_position_embeddings=2048,
        tie_word_embeddings=False,
        bos_token_id=0,
        eos_token_id=0,
    )]
