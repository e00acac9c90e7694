"""EXAONE 4.0 decoder LM, after `LGAI-EXAONE/EXAONE-4.0-32B`, shrunk.

Exaone4ForCausalLM. Hybrid attention in a 3:1 pattern ("LLLG"): three sliding-window (local) layers with RoPE
(llama3-scaled, theta 1e6), then one global full-attention layer with no positional encoding at all (NoPE). GQA with
QK-norm (per-head RMSNorm on q and k right after the projections, before RoPE). QK-Reorder-Norm blocks: no pre-norm;
the norms sit on the sub-layer outputs, x = x + RMSNorm(attn(x)); x = x + RMSNorm(SwiGLU(x)). Final RMSNorm, untied
LM head.

Shrunk: hidden 5120 -> 128, 64 layers -> 4 (one period: local, local, local, global), 40 heads -> 4, 8 kv heads ->
2, head_dim 128 -> 32 (hidden / heads), intermediate 27392 -> 684 (the published 5.35x kept), sliding_window
4096 -> 16 (smaller than the 64-token input, so the window bites), vocab 102400 -> 1000 (the published pad 0,
bos 1 and eos 361 ids fit and are kept).
Inputs: input_ids (2, 64) starting with bos, attention_mask with the second sample right-padded by 4 tokens
(pad = 0). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Exaone4Config, Exaone4ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0  # [PAD]
bos_token_id = 1  # [BOS]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Exaone4ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # LGAI-EXAONE/EXAONE-4.0-32B config.json. Kept: silu, rms_norm_eps 1e-5, sliding_window_pattern "LLLG",
    # llama3 RoPE scaling (theta 1e6, factor 16, low / high freq factors 1 / 4, original max positions 8192),
    # max_position_embeddings 131072, no dropout, initializer_range 0.02, untied LM head, pad 0 / bos 1 / eos 361.
    return [Exaone4Config(
        vocab_size=vocab_size,  # published 102400
        hidden_size=128,  # published 5120
        intermediate_size=684,  # published 27392
        num_hidden_layers=4,  # published 64
        num_attention_heads=4,  # published 40
        num_key_value_heads=2,  # published 8
        max_position_embeddings=131072,
        sliding_window=16,  # published 4096
        sliding_window_pattern="LLLG",
        layer_types=["sliding_attention"] * 3 + ["full_attention"],  # published: this period x 16
        rope_parameters={
            "rope_type": "llama3",
            "rope_theta": 1000000.0,
            "factor": 16.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        pad_token_id=pad_token_id,
        bos_token_id=bos_token_id,
        eos_token_id=361,
    )]
