"""OLMo 3 decoder LM (AllenAI): the OLMo 2 block (post-norm residuals x + RMSNorm(attn(x)) and x + RMSNorm(mlp(x))
with no norm at a block's input; QK-norm as RMSNorm over the whole q and k projections before the split into
heads; SwiGLU MLP; MHA) with hybrid attention: three sliding-window layers then one full-attention layer, repeated.
The two layer kinds also use different RoPE: YaRN-scaled RoPE (8K -> 64K context extension, with its attention
factor on cos/sin) on the full-attention layers, plain RoPE on the sliding-window layers. Final RMSNorm, untied LM
head. After `allenai/Olmo-3-1025-7B` (Olmo-3-7B), shrunk.

Olmo3ForCausalLM.
Layers: sliding, sliding, sliding, full (the published repeating pattern, once). The window is shrunk to 16 and
the sequence is 64 tokens, so the window matters.
Shrunk: hidden 4096 -> 128, 32 layers -> 4, 32 heads -> 4 (MHA kept: kv heads = heads), head_dim 128 -> 32,
intermediate 11008 -> 344 (the published 2.6875x kept), sliding_window 4096 -> 16, vocab 100278 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 5 tokens. The published pad
(<|pad|> = 100277) and eos (<|endoftext|> = 100257) ids lie outside the shrunk vocab, so they are remapped to
1 and 0. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Olmo3Config, Olmo3ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 1  # published 100277
eos_token_id = 0  # published 100257


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Olmo3ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # allenai/Olmo-3-1025-7B config.json. Kept: silu, rms_norm_eps 1e-6, no attention bias, rope_theta 5e5,
    # YaRN on the full-attention layers (factor 8, original 8192, attention_factor 1.2079, beta_fast 32,
    # beta_slow 1), max_position_embeddings 65536, the 3:1 sliding/full layer pattern, untied head.
    return [Olmo3Config(
        vocab_size=vocab_size,  # published 100278
        hidden_size=128,  # published 4096
        intermediate_size=344,  # published 11008
        num_hidden_layers=4,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        hidden_act="silu",
        max_position_embeddings=65536,
        rms_norm_eps=1e-6,
        attention_bias=False,
        sliding_window=16,  # published 4096
        layer_types=["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
        rope_parameters={
            "full_attention": {"rope_type": "yarn", "rope_theta": 500000.0, "factor": 8.0,
                               "original_max_position_embeddings": 8192,
                               "attention_factor": 1.2079441541679836, "beta_fast": 32.0, "beta_slow": 1.0},
            "sliding_attention": {"rope_type": "default", "rope_theta": 500000.0},
        },
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,
        bos_token_id=None,
        eos_token_id=eos_token_id,
    )]
