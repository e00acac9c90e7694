"""OLMo Hybrid (OLMo-3-style decoder where 3 of every 4 layers are Gated DeltaNet linear attention (short causal convs
on q/k/v, L2-normalised q/k, negative-eigenvalue beta in [0, 2], gated RMSNorm output) and every 4th layer is full
softmax attention with whole-projection q/k RMSNorm and no positional encoding (NoPE); OLMo-2 post-norm placement
in the attention layers), after `allenai/Olmo-Hybrid-7B`, shrunk.

Shrunk: hidden 3840 -> 128, intermediate 11008 -> 384, 32 layers -> 4 (3 linear_attention + 1 full_attention,
the published 3:1 pattern), 30 heads -> 4 (head_dim 128 -> 32), linear-attention key/value heads 30 -> 4
(derived head dims 0.75 * hidden / heads = 96 -> 24 and 2x that = 192 -> 48), vocab 100352 -> 1000
(pad/eos ids moved inside it). The Gated DeltaNet runs its pure-torch chunked path (no fla kernels needed).
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import OlmoHybridConfig, OlmoHybridForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = OlmoHybridForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # allenai/Olmo-Hybrid-7B config.json. Kept: NoPE (rope_theta null), 3:1 linear/full layer pattern,
    # conv kernel 4, allow_neg_eigval, rms_norm_eps 1e-6, silu SwiGLU, untied LM head.
    return [OlmoHybridConfig(
        vocab_size=vocab_size,  # published 100352
        hidden_size=128,  # published 3840
        intermediate_size=384,  # published 11008
        num_hidden_layers=4,  # published 32
        layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],  # published 8 x this
        num_attention_heads=4,  # published 30
        num_key_value_heads=4,  # published 30 (no GQA, kept)
        linear_num_key_heads=4,  # published 30
        linear_num_value_heads=4,  # published 30
        linear_conv_kernel_dim=4,  # published 4 (kept)
        linear_allow_neg_eigval=True,  # published true (kept)
        rope_theta=None,  # published null: no RoPE (kept)
        max_position_embeddings=65536,  # published 65536 (kept)
        rms_norm_eps=1e-6,  # published 1e-6 (kept)
        pad_token_id=999,  # published 100277
        eos_token_id=998,  # published 100257
        tie_word_embeddings=False,  # published false (kept)
    )]
