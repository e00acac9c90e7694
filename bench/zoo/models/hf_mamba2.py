"""Mamba2 language model (pure SSD / Mamba2 mixer stack, gated RMSNorm, tied LM head), after the architecture of
`state-spaces/mamba2-130m`, shrunk.

Shrunk: d_model 768 -> 128, 24 layers -> 2, vocab 50288 -> 1000, chunk size 256 -> 16 (the 64-token input is
split into 4 chunks, so the inter-chunk state passing runs). Kept: head dim 64 (-> 4 heads instead of 24),
n_groups 1, d_state 128, d_conv 4, expand 2, no in/out projection bias, conv bias on, tied embeddings.
Inputs: input_ids (2, 64) and an attention_mask whose second sample is right-padded (GPT-NeoX tokenizer).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Mamba2Config, Mamba2ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Mamba2ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = 1  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # state-spaces/mamba2-130m (mamba_ssm config: d_model 768, n_layer 24, ssm_cfg layer Mamba2, headdim 64,
    # ngroups 1, d_state 128, chunk_size 256, rms_norm, tie_embeddings).
    return [Mamba2Config(
        vocab_size=vocab_size,  # published 50288 (50277 padded to a multiple of 16)
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 24
        num_heads=4,  # published 24 = 2 * 768 / 64
        head_dim=64,
        n_groups=1,
        state_size=128,
        expand=2,
        conv_kernel=4,
        chunk_size=16,  # published 256
        use_bias=False,
        use_conv_bias=True,
        layer_norm_epsilon=1e-5,
        tie_word_embeddings=True,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=1,
    )]
