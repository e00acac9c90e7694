"""T5-small: the published config of `google-t5/t5-small` (= T5Config() defaults), full encoder-decoder with LM head.

Encoder 128 tokens (T5's pre-training input length is 512: shortened for the CPU sweep), decoder 128 tokens (span-corruption targets are ~114
tokens; 128 is the usual fine-tuning target length). Inputs: input_ids, decoder_input_ids.
Output: LM logits (batch, 128, 32128).
"""
import torch
from torch import nn
from transformers import T5Config, T5ForConditionalGeneration

batch_size = 1
seq_len = 128          # encoder tokens (512 in training: shortened for the CPU sweep)
decoder_seq_len = 128  # decoder tokens


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = T5ForConditionalGeneration(config)

    def forward(self, input_ids, decoder_input_ids):
        return self.model(input_ids=input_ids, decoder_input_ids=decoder_input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(0, 32128, (batch_size, seq_len)),
            torch.randint(0, 32128, (batch_size, decoder_seq_len))]


def get_init_inputs():
    # t5-small config.json: d_model 512, d_kv 64, d_ff 2048, 6 + 6 layers, 8 heads, 32 relative buckets
    # (max distance 128), relu feed-forward, layer_norm_epsilon 1e-6, vocab 32128, tied LM head: all defaults.
    return [T5Config()]
