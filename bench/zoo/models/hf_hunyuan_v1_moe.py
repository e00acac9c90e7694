"""Hunyuan-A13B MoE decoder LM (GQA with RoPE whose base is stretched by a fixed NTK alpha (the checkpoint's
"dynamic" rope with alpha 1000: base = theta * alpha^(d / (d - 2)), static frequencies), then per-head RMSNorm on
q and k applied after RoPE (QK-norm); every layer a mixed MLP/MoE block: a shared SwiGLU MLP run on every token
plus a float32 softmax router choosing top-k SwiGLU experts with renormalized weights; pre-RMSNorm residual blocks;
tied embeddings), after `tencent/Hunyuan-A13B-Instruct`, shrunk.

HunYuanMoEV1ForCausalLM (the class name is the same in transformers 5.24).
Shrunk: hidden 4096 -> 128, 32 layers -> 2, 32 heads -> 4, 8 kv heads -> 2, head_dim 128 -> 32 (q width = hidden
kept), expert / shared-MLP intermediate 3072 -> 96 (the published 0.75x hidden kept), 64 experts -> 8,
top-8 -> top-2, vocab 128167 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens. The published eos
(127960) and pad (127961) ids lie outside the shrunk vocab, so they are remapped to 2 and 0 (bos 1 kept).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import HunYuanMoEV1Config, HunYuanMoEV1ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0  # published 127961
bos_token_id = 1
eos_token_id = 2  # published 127960


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = HunYuanMoEV1ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # tencent/Hunyuan-A13B-Instruct config.json. Kept: silu, rms_norm_eps 1e-5, QK-norm, one shared MLP per layer,
    # every layer MoE, rope theta 1e4 with NTK alpha 1000 ("dynamic", factor 1), max_position_embeddings 32768,
    # no attention bias, attention_dropout 0.1 (inactive in eval), tied embeddings, bos 1.
    return [HunYuanMoEV1Config(
        vocab_size=vocab_size,  # published 128167
        hidden_size=128,  # published 4096
        intermediate_size=96,  # published 3072
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        head_dim=32,  # published 128
        num_experts=8,  # published 64
        moe_topk=2,  # published 8
        hidden_act="silu",
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "alpha": 1000.0, "factor": 1.0},
        max_position_embeddings=32768,
        attention_bias=False,
        attention_dropout=0.1,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,  # published 127961
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,  # published 127960
    )]
