"""GPT-J (one LayerNorm per block feeding attention and MLP in parallel, summed with the residual; separate bias-free
q/k/v/out projections; partial rotary on the first `rotary_dim` dims of each head, GPT-J style interleaved
"rotate every two" pairs from a sinusoidal table; biased MLP and biased, untied LM head), after
`EleutherAI/gpt-j-6B`, shrunk.

GPTJForCausalLM.
Shrunk: hidden 4096 -> 128, 28 layers -> 2, 16 heads -> 4, head_dim 256 -> 32, rotary_dim 64 -> 8 (the published
quarter of each head), intermediate 16384 (4 x hidden) -> 512 (still 4 x hidden), vocab 50400 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded (GPT-J's GPT-2 tokenizer pads right
and has no pad token; users pad with eos).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import GPTJConfig, GPTJForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
eos_token_id = vocab_size - 1  # published 50256 (GPT-2 "<|endoftext|>")


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GPTJForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, vocab_size - 1, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = eos_token_id  # pad with eos
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # EleutherAI/gpt-j-6B config.json. Kept: gelu_new, layer_norm_epsilon 1e-5, n_inner null (4 x hidden),
    # dropouts 0 (attn/embd/resid), untied head, n_positions 2048, initializer_range 0.02.
    return [GPTJConfig(
        vocab_size=vocab_size,  # published 50400
        n_positions=2048,
        n_embd=128,  # published 4096
        n_layer=2,  # published 28
        n_head=4,  # published 16
        rotary_dim=8,  # published 64 (of head_dim 256)
        n_inner=None,
        activation_function="gelu_new",
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        layer_norm_epsilon=1e-5,
        initializer_range=0.02,
        tie_word_embeddings=False,
        bos_token_id=eos_token_id,  # published 50256
        eos_token_id=eos_token_id,  # published 50256
    )]
