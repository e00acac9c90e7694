"""BioGPT decoder LM (Luo et al. 2022, "BioGPT: Generative Pre-trained Transformer for Biomedical Text Generation
and Mining", arXiv 2210.10341), after `microsoft/biogpt`, shrunk.

BioGptForCausalLM. fairseq-style GPT: token embeddings multiplied by sqrt(hidden) (scale_embedding), plus learned
absolute position embeddings with the fairseq offset of 2 (table of max_position_embeddings + 2 rows, looked up at
position + 2). Pre-LayerNorm blocks (nn.LayerNorm with weight and bias at the library's eps 1e-5: the config's
layer_norm_eps 1e-12 is not read by the model) of full multi-head attention with biased q / k / v / out projections,
then a non-gated GELU MLP (fc1 / fc2 with bias). Final LayerNorm; output projection tied to the embedding, no bias.
Positions: in this transformers version the model builds position_ids = arange(seq_len) itself when none are passed,
so the embedding's own attention-mask path (cumsum(mask) * mask - 1, which would send pad tokens to row 1) is not
taken; the padded tail gets positions 59..63 like any other token and is excluded only by the attention mask.
Shrunk: hidden 1024 -> 256, 24 layers -> 2, 16 heads -> 4 (head_dim 64 kept), intermediate 4096 -> 1024 (the
published 4x hidden kept), vocab 42384 -> 1000. max_position_embeddings 1024 kept.
Inputs: input_ids (2, 64) starting with </s> (id 2: the BioGPT tokenizer prefixes every sequence with its sep token),
attention_mask with the second sample right-padded by 6 tokens with <pad> (id 1, as published).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import BioGptConfig, BioGptForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = 0
pad_token_id = 1
eos_token_id = 2  # </s>, also the sep token the tokenizer puts first


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BioGptForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = eos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -6:] = pad_token_id  # pad
    attention_mask[1, -6:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # microsoft/biogpt config.json. Kept: gelu, scale_embedding, max_position_embeddings 1024,
    # hidden / attention dropout 0.1 (inactive in eval), activation_dropout 0, layerdrop 0, layer_norm_eps 1e-12
    # (unused by the model), initializer_range 0.02, tied embeddings, bos 0 / pad 1 / eos 2.
    return [BioGptConfig(
        vocab_size=vocab_size,  # published 42384
        hidden_size=256,  # published 1024
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        intermediate_size=1024,  # published 4096
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=1024,
        initializer_range=0.02,
        layer_norm_eps=1e-12,
        scale_embedding=True,
        layerdrop=0.0,
        activation_dropout=0.0,
        pad_token_id=pad_token_id,
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,
        tie_word_embeddings=True,
    )]
