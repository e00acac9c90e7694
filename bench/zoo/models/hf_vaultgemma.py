"""VaultGemma (Gemma-2-style decoder trained with differential privacy: pre-norm only, i.e. Gemma 2 without the
post-attention / post-feedforward norms, GeGLU MLP, sqrt(hidden)-scaled embeddings, zero-centred RMSNorm (1 + w),
attention scaled by query_pre_attn_scalar, global attention in every layer, tied LM head),
after `google/vaultgemma-1b`, shrunk.

Shrunk: hidden 1152 -> 256, intermediate 6912 -> 1024, 26 layers -> 2, 4 heads kept (4 KV heads kept),
head_dim 256 -> 64 (query_pre_attn_scalar 256 -> 64 to keep the 1/sqrt(head_dim) scaling), vocab 256000 -> 1000.
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (5 positions).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import VaultGemmaConfig, VaultGemmaForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = VaultGemmaForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # google/vaultgemma-1b config.json. Kept: gelu_pytorch_tanh GeGLU, rms_norm_eps 1e-6, rope_theta 10000,
    # all layers full (global) attention, no logit soft-capping, tied LM head, pad/eos/bos ids 0/1/2.
    num_hidden_layers = 2  # published 26
    return [VaultGemmaConfig(
        vocab_size=vocab_size,  # published 256000
        hidden_size=256,  # published 1152
        intermediate_size=1024,  # published 6912
        num_hidden_layers=num_hidden_layers,
        num_attention_heads=4,  # published 4 (kept)
        num_key_value_heads=4,  # published 4 (kept)
        head_dim=64,  # published 256
        query_pre_attn_scalar=64,  # published 256 (= head_dim)
        max_position_embeddings=1024,  # published 1024 (kept)
        sliding_window=512,  # published 512 (unused: no sliding layers)
        layer_types=["full_attention"] * num_hidden_layers,  # published 26 x full_attention
        attn_logit_softcapping=None,  # published null
        final_logit_softcapping=None,  # published null
    )]
