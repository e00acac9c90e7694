"""YOSO masked LM (Zeng, Xiong, Ravi, Acharya, Fung & Singh 2021, "You Only Sample (Almost) Once: Linear Cost
Self-Attention Via Bernoulli Sampling", `uw-madison/yoso-4096`, YosoForMaskedLM), shrunk: a BERT-style encoder whose
softmax attention is replaced by the collision probability of random-hyperplane LSH (SimHash). In its expectation
form (the checkpoint's `use_expectation=True`, which the model runs at inference without custom kernels), queries
and keys are L2-normalised per head and the attention weight between them is the probability that tau random
hyperplane hashes agree:
    A_ij = (1 - arccos(q_i . k_j) / pi) ^ tau        (tau = hash_code_len)
multiplied by the query and key masks, with NO softmax and no row normalisation; the output A V is L2-normalised
per head instead. (This transformers port hands the raw 0 / 1 mask to an attention written for the additive
-10000 mask: its `int(1 + mask / 10000)` is 1 for both values, so padded keys are in fact NOT masked; the mask path
still runs.) Everything else is BERT: word + learned absolute position (offset by 2, RoBERTa
style) + token-type embeddings, post-LayerNorm blocks with a GELU MLP, and an MLM head (dense, GELU, LayerNorm,
decoder tied to the word embeddings).

Shrunk (from uw-madison/yoso-4096): hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4, intermediate 3072 -> 128,
vocab 50265 -> 1000, max positions 4096 -> 128. Kept: hash_code_len 9, expectation attention, no conv branch,
RoBERTa-style position offset (pad 1, bos 0, eos 2).
Inputs: input_ids (2, 64), attention_mask (the second sample right-padded by 10 tokens).
Output: MLM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import YosoConfig, YosoForMaskedLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = YosoForMaskedLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 0  # <s>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -10:] = pad_token_id
    attention_mask[1, -10:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # uw-madison/yoso-4096 config.json, shrunk where commented. Kept: gelu, layer_norm_eps 1e-12, type_vocab_size 1,
    # use_expectation True, hash_code_len 9, num_hash 64 (unused by the expectation form), conv_window None.
    return [YosoConfig(
        vocab_size=vocab_size,  # published 50265
        hidden_size=64,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=128,  # published 3072
        max_position_embeddings=128,  # published 4096
    )]
