"""LFM2 hybrid LM (most layers are double-gated short convolutions: in_proj to B, C, x, B*x, a depthwise causal
conv1d of kernel 3 over the sequence, C*conv, out_proj; the others are GQA attention with per-head q/k RMSNorm
and RoPE; every layer pre-RMSNorm with a SwiGLU feed-forward; tied LM head), after `LiquidAI/LFM2-350M`, shrunk.

Lfm2ForCausalLM. The published 16 layers are [conv, conv, attn, conv, conv, attn, conv, conv, attn, conv, attn,
conv, attn, conv, attn, conv]; the first 3 are kept ([conv, conv, full_attention]), so both layer types run.
Shrunk: hidden 1024 -> 128, 16 layers -> 3, 16 heads -> 4, 8 kv heads -> 2 (2 query heads per kv head kept),
head_dim 64 -> 32, block_ff_dim 6656 -> 832 (6.5x hidden kept; auto-adjusted to 2/3 and rounded up to
block_multiple_of 256 -> 64, giving a SwiGLU width of 576 = 4.5x hidden, as the published 4608 is),
vocab 65536 -> 1000. Conv kernel (conv_L_cache 3) kept.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (pad = <|pad|> = 0).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Lfm2Config, Lfm2ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0  # <|pad|>


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Lfm2ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(8, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 1  # <|startoftext|>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # LiquidAI/LFM2-350M config.json. Kept: norm_eps 1e-5, rope_theta 1e6, conv_bias false, conv_L_cache 3,
    # block_auto_adjust_ff_dim, block_ffn_dim_multiplier 1.0, max_position_embeddings 128000,
    # initializer_range 0.02, tied embeddings, pad 0 / bos 1 / eos 7 (<|im_end|>).
    return [Lfm2Config(
        vocab_size=vocab_size,  # published 65536
        hidden_size=128,  # published 1024
        intermediate_size=832,  # published block_ff_dim 6656
        num_hidden_layers=3,  # published 16
        num_attention_heads=4,  # published 16
        num_key_value_heads=2,  # published 8
        max_position_embeddings=128000,
        initializer_range=0.02,
        norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        conv_bias=False,
        conv_L_cache=3,
        block_multiple_of=64,  # published 256
        block_ffn_dim_multiplier=1.0,
        block_auto_adjust_ff_dim=True,
        layer_types=["conv", "conv", "full_attention"],  # published: the 16-entry list above
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
        bos_token_id=1,
        eos_token_id=7,
    )]
