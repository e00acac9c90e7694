"""StableLM 2 (LayerNorm decoder, bias on q/k/v, partial rotary on 25% of each head, sequential residual, no
q/k LayerNorm), after `stabilityai/stablelm-2-1_6b`, shrunk.

Shrunk: hidden 2048 -> 128, 24 layers -> 2, 32 heads -> 4 (head_dim 64 -> 32, so 8 rotary dims),
intermediate 5632 -> 352, vocab 100352 -> 1000. Inputs: input_ids (2, 64), attention_mask with the second sample
right-padded. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import StableLmConfig, StableLmForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
eos_token_id = 999  # published 100257 (<|endoftext|>, also used as bos and for padding)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = StableLmForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, eos_token_id, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = eos_token_id
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # stabilityai/stablelm-2-1_6b config.json. Kept: partial_rotary_factor 0.25, rope_theta 1e4,
    # use_qkv_bias True, qk_layernorm False, use_parallel_residual False, silu, layer_norm_eps 1e-5, MHA,
    # untied head, max_position_embeddings 4096.
    return [StableLmConfig(
        vocab_size=vocab_size,  # published 100352
        hidden_size=128,  # published 2048
        intermediate_size=352,  # published 5632
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        use_qkv_bias=True,
        qk_layernorm=False,
        use_parallel_residual=False,
        hidden_act="silu",
        layer_norm_eps=1e-5,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        bos_token_id=eos_token_id,
        eos_token_id=eos_token_id,
    )]
