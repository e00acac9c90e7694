"""XGLM decoder LM (Meta's multilingual GPT-style model, fairseq lineage): token embeddings scaled by sqrt(d_model),
plus fixed (non-learned) sinusoidal position embeddings (fairseq layout: sin half then cos half; position p reads
row p + 2 of the table, whose padding row 1 is zeroed); pre-LayerNorm blocks of causal multi-head attention with
biased q/k/v/out projections and a GELU fc1/fc2 MLP; final LayerNorm; LM head tied to the token embeddings.
After `facebook/xglm-564M`, shrunk.

XGLMForCausalLM.
Shrunk: d_model 1024 -> 128, 24 layers -> 2, 16 heads -> 4 (head_dim 64 -> 32), ffn 4096 -> 512, vocab
256008 -> 1000; max_position_embeddings 2048 kept.
Inputs: input_ids (2, 48) starting with </s> (id 2, which the XGLM tokenizer prepends), attention_mask with the
second sample right-padded by 5 <pad> (id 1) tokens. Output: LM logits (2, 48, 1000).
"""
import torch
from torch import nn
from transformers import XGLMConfig, XGLMForCausalLM

batch_size = 2
seq_len = 48
vocab_size = 1000
pad_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = XGLMForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 2  # </s>, prepended by the tokenizer
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # facebook/xglm-564M config.json. Kept: gelu, scale_embedding True, max_position_embeddings 2048, dropout 0.1,
    # attention_dropout 0.1, activation_dropout 0 and layerdrop 0 (inactive in eval), init_std 0.02, tied head,
    # bos 0 / pad 1 / eos 2 / decoder_start 2.
    return [XGLMConfig(
        vocab_size=vocab_size,  # published 256008
        max_position_embeddings=2048,
        d_model=128,  # published 1024
        ffn_dim=512,  # published 4096
        num_layers=2,  # published 24
        attention_heads=4,  # published 16
        activation_function="gelu",
        dropout=0.1,
        attention_dropout=0.1,
        activation_dropout=0.0,
        layerdrop=0.0,
        init_std=0.02,
        scale_embedding=True,
        tie_word_embeddings=True,
        decoder_start_token_id=2,
        bos_token_id=0,
        pad_token_id=pad_token_id,
        eos_token_id=2,
    )]
