"""X-MOD: XLM-R-style encoder with per-language bottleneck adapters after every layer's FFN (the shared
FFN LayerNorm is reused before the adapter; each sample is routed to its language's adapter by lang_ids),
after `facebook/xmod-base`, shrunk.

Shrunk: hidden 768 -> 128, 12 layers -> 2, 12 heads -> 4, intermediate 3072 -> 256, vocab 250002 -> 1000,
languages 81 -> 2 (en_XX, de_DE), default_language None -> "en_XX".
Inputs: input_ids (2, 64), an attention_mask whose second sample is right-padded (5 positions), and
lang_ids (2,) = [0, 1] (sample 0 through the en_XX adapters, sample 1 through the de_DE adapters).
Output: (last_hidden_state (2, 64, 128), pooler_output (2, 128)).
"""
import torch
from torch import nn
from transformers import XmodConfig, XmodModel

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = XmodModel(config)

    def forward(self, input_ids, attention_mask, lang_ids):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, lang_ids=lang_ids)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    lang_ids = torch.tensor([0, 1])
    return [input_ids, attention_mask, lang_ids]


def get_init_inputs():
    # facebook/xmod-base config.json. Kept: adapter_reduction_factor 2, adapter_reuse_layer_norm, ln_before_adapter,
    # post-LN (pre_norm False), max_position_embeddings 514, type_vocab_size 1, layer_norm_eps 1e-5.
    return [XmodConfig(
        vocab_size=vocab_size,  # published 250002
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        max_position_embeddings=514,  # published 514
        type_vocab_size=1,  # published 1
        layer_norm_eps=1e-5,  # published 1e-5
        adapter_reduction_factor=2,  # published 2
        languages=["en_XX", "de_DE"],  # published 81 languages
        default_language="en_XX",  # published None (set with set_default_language("en_XX") in the model card)
    )]
