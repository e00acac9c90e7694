"""BART-large: the published config of `facebook/bart-large`, full encoder-decoder with the LM head.

Encoder and decoder sequence length 1024 (max_position_embeddings; the denoising pre-training reconstructs
the whole 1024-token input). Inputs: input_ids, decoder_input_ids. Output: LM logits (batch, 1024, 50265).
"""
import torch
from torch import nn
from transformers import BartConfig, BartForConditionalGeneration

batch_size = 1
seq_len = 128           # encoder tokens (the checkpoint's context is 1024: shortened for the CPU sweep)
decoder_seq_len = 128   # decoder tokens (context 1024)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BartForConditionalGeneration(config)

    def forward(self, input_ids, decoder_input_ids):
        return self.model(input_ids=input_ids, decoder_input_ids=decoder_input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 50265, (batch_size, seq_len)),
            torch.randint(0, 50265, (batch_size, decoder_seq_len))]


def get_init_inputs():
    # facebook/bart-large config.json: d_model 1024, 12 + 12 layers, 16 heads, ffn 4096, vocab 50265,
    # max_position_embeddings 1024, gelu, no embedding scaling (all BartConfig defaults), and:
    return [BartConfig(
        activation_dropout=0.1,
        attention_dropout=0.1,
        forced_bos_token_id=0,
    )]
