"""Bamba (Mamba2 layers with a few GQA attention layers, SwiGLU MLP after each mixer), after
`ibm-ai-platform/Bamba-9B`, shrunk.

4 layers: layer 2 is attention, the others Mamba2 (published: attention at layers 9, 18, 27 of 32).
Shrunk: hidden 4096 -> 128, 32 layers -> 4, 32 heads -> 4, 8 kv heads -> 2, intermediate 14336 -> 448,
128 mamba heads -> 4 (mamba head dim 64 kept), mamba chunk 256 -> 16 (so the 64-token input is chunked),
vocab 128256 -> 1000. Inputs: input_ids (2, 64), attention_mask with the second sample right-padded.
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import BambaConfig, BambaForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BambaForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = 0  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # ibm-ai-platform/Bamba-9B config.json. Kept: silu, rms_norm_eps 1e-5, mamba d_state 128, d_conv 4,
    # expand 2, n_groups 1, head dim 64, conv bias on, proj bias off, no attention / mlp bias, untied head,
    # pad 0 / bos 1 / eos 2. (Partial rotary 0.5 in the attention layers is fixed by BambaConfig.)
    return [BambaConfig(
        vocab_size=vocab_size,  # published 128256
        hidden_size=128,  # published 4096
        intermediate_size=448,  # published 14336
        num_hidden_layers=4,  # published 32
        attn_layer_indices=[2],  # published [9, 18, 27]
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        mamba_n_heads=4,  # published 128
        mamba_d_head=64,
        mamba_n_groups=1,
        mamba_d_state=128,
        mamba_d_conv=4,
        mamba_expand=2,
        mamba_chunk_size=16,  # published 256
        mamba_conv_bias=True,
        mamba_proj_bias=False,
        hidden_act="silu",
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )]
