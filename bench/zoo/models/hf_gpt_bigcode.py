"""StarCoder / SantaCoder code LM (Li et al. 2023, "StarCoder: may the source be with you!", arXiv 2305.06161;
Allal et al. 2023, "SantaCoder: don't reach for the stars!"), after `bigcode/starcoder`, shrunk.

GPTBigCodeForCausalLM. GPT-2-style decoder: token embeddings plus learned absolute position embeddings (wte + wpe,
positions 0..T-1), pre-LayerNorm blocks of multi-query attention (one fused c_attn projection to hidden + 2 x
head_dim: every query head shares a single key and value head, a size-1 head dimension broadcast over the query
heads), softmax scaled by 1/sqrt(head_dim) (the attention_softmax_in_fp32 flags are kept in the config but the
default SDPA path does not read them), output projection with bias, and a 4x GELU MLP (c_fc, exact erf GELU, c_proj, all with biases); final
LayerNorm; LM head tied to the token embedding.
Shrunk: hidden 6144 -> 256, 40 layers -> 2, 48 heads -> 8 (head_dim 128 -> 32), n_inner 24576 -> 1024 (the
published 4x hidden kept), vocab 49152 -> 1000. The single key/value head (multi_query) and the 8192 learned
positions are kept.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 8 tokens (the tokenizer has no pad
token; padded with <|endoftext|> = 0, as users set pad = eos). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import GPTBigCodeConfig, GPTBigCodeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
eos_token_id = 0
pad_token_id = eos_token_id  # no pad token published; pad = eos


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GPTBigCodeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -8:] = pad_token_id  # pad
    attention_mask[1, -8:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # bigcode/starcoder config.json. Kept: activation "gelu", multi_query, n_positions 8192, layer_norm_epsilon
    # 1e-5, initializer_range 0.02, scale_attn_weights, attention_softmax_in_fp32, scale_attention_softmax_in_fp32,
    # resid / embd / attn dropout 0.1 (inactive in eval), tied embeddings, bos = eos = 0.
    return [GPTBigCodeConfig(
        vocab_size=vocab_size,  # published 49152
        n_positions=8192,
        n_embd=256,  # published 6144
        n_layer=2,  # published 40
        n_head=8,  # published 48
        n_inner=1024,  # published 24576
        activation_function="gelu",
        resid_pdrop=0.1,
        embd_pdrop=0.1,
        attn_pdrop=0.1,
        layer_norm_epsilon=1e-5,
        initializer_range=0.02,
        scale_attn_weights=True,
        attention_softmax_in_fp32=True,
        scale_attention_softmax_in_fp32=True,
        multi_query=True,
        tie_word_embeddings=True,
        bos_token_id=eos_token_id,
        eos_token_id=eos_token_id,
        pad_token_id=pad_token_id,
    )]
