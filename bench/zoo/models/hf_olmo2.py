"""OLMo 2 decoder LM (Llama-style MHA with RoPE theta 5e5 and a SwiGLU MLP, but post-norm residual blocks:
x + RMSNorm(attn(x)) and x + RMSNorm(mlp(x)), with no norm at a block's input; QK-norm as RMSNorm over the whole
q and k projections (all heads together, before the split into heads); final RMSNorm; untied LM head), after
`allenai/OLMo-2-1124-7B`, shrunk.

Olmo2ForCausalLM.
Shrunk: hidden 4096 -> 128, 32 layers -> 2, 32 heads -> 4 (MHA kept: kv heads = heads), head_dim 128 -> 32,
intermediate 11008 -> 344 (the published 2.6875x kept), vocab 100352 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens. The published pad
(<|pad|> = 100277) and eos (<|endoftext|> = 100257) ids lie outside the shrunk vocab, so they are remapped to
1 and 0. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Olmo2Config, Olmo2ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 1  # published 100277
eos_token_id = 0  # published 100257


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Olmo2ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # allenai/OLMo-2-1124-7B config.json. Kept: silu, rms_norm_eps 1e-6, rope_theta 5e5, no rope scaling,
    # max_position_embeddings 4096, no attention bias, attention_dropout 0, initializer_range 0.02, untied head.
    return [Olmo2Config(
        vocab_size=vocab_size,  # published 100352
        hidden_size=128,  # published 4096
        intermediate_size=344,  # published 11008
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        hidden_act="silu",
        max_position_embeddings=4096,
        initializer_range=0.02,
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 500000.0},
        attention_bias=False,
        attention_dropout=0.0,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,  # published 100277
        bos_token_id=None,
        eos_token_id=eos_token_id,  # published 100257
    )]
