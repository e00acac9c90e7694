"""StarCoder2 code LM (GQA, sliding-window attention in every layer, LayerNorm with bias instead of RMSNorm,
non-gated GELU(tanh) MLP with bias, biases on all q/k/v/o projections, RoPE with theta ~1e6, tied LM head),
after `bigcode/starcoder2-3b`, shrunk.

Starcoder2ForCausalLM. The window is shrunk from 4096 to 16 tokens on a 48-token input, so it bites.
Shrunk: hidden 3072 -> 128, 30 layers -> 2, 24 heads -> 8, 2 kv heads kept (GQA, 4 query heads per kv head
instead of 12), head_dim 128 -> 16, intermediate 12288 -> 512 (4x kept), sliding_window 4096 -> 16,
vocab 49152 -> 1000, max_position_embeddings 16384 kept.
Inputs: input_ids (2, 48), attention_mask with the second sample right-padded by 4 tokens (the StarCoder2
tokenizer pads right; pad = <|endoftext|> = 0). Output: LM logits (2, 48, 1000).
"""
import torch
from torch import nn
from transformers import Starcoder2Config, Starcoder2ForCausalLM

batch_size = 2
seq_len = 48
vocab_size = 1000
pad_token_id = 0  # <|endoftext|>, also bos / eos


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Starcoder2ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # bigcode/starcoder2-3b config.json. Kept: gelu_pytorch_tanh, norm_epsilon 1e-5 (LayerNorm), use_bias true,
    # rope_theta 999999.442..., dropouts 0.1 (inactive in eval), initializer_range 0.018042, bos = eos = 0,
    # tie_word_embeddings (not in the published file, so the config default True applies).
    return [Starcoder2Config(
        vocab_size=vocab_size,  # published 49152
        hidden_size=128,  # published 3072
        intermediate_size=512,  # published 12288
        num_hidden_layers=2,  # published 30
        num_attention_heads=8,  # published 24
        num_key_value_heads=2,
        hidden_act="gelu_pytorch_tanh",
        max_position_embeddings=16384,
        initializer_range=0.018042,
        norm_epsilon=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 999999.4420358813},
        sliding_window=16,  # published 4096
        attention_dropout=0.1,
        residual_dropout=0.1,
        embedding_dropout=0.1,
        use_bias=True,
        tie_word_embeddings=True,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=pad_token_id,
    )]
