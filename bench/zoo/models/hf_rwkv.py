"""RWKV-4 language model (an attention-free RNN trained like a transformer), after `RWKV/rwkv-4-169m-pile`, shrunk.

Each block (pre-LayerNorm residuals; block 0 has an extra LayerNorm on the embeddings) has a time-mix and a
channel-mix sublayer. Time mix: token shift (each position is lerped with the previous position's input by learned
per-channel time_mix_key / value / receptance), key / value / receptance projections, then the WKV recurrence: a
per-channel exponentially decaying (decay = -exp(time_decay)) weighted average of past values weighted by
exp(key), with a per-channel bonus time_first for the current token, kept numerically stable with a running
maximum (num / den / max states); the output is gated by sigmoid(receptance) and projected. Channel mix: token
shift, squared-ReLU key projection, value projection, gated by sigmoid(receptance). Without CUDA the library runs
the recurrence as a Python loop over the time steps (the CPU path used here). At inference the library rescales
(in place, on the first eval forward) the output projections of block i by 1 / 2^(i // rescale_every) and halves
the hidden state after every rescale_every blocks (fp16 overflow guard); rescale_every is shrunk with the depth so
that this stays active. Final LayerNorm, untied LM head.

RwkvForCausalLM (its default use_cache=True keeps the per-layer recurrent state).
Shrunk: hidden 768 -> 128 (attention_hidden_size 768 -> 128), 12 layers -> 4, intermediate 3072 -> 512,
rescale_every 6 -> 2, vocab 50277 -> 1000; context_length 1024 kept.
Inputs: input_ids (2, 32); the second sample is right-padded by 5 tokens. RWKV has no attention mask (the library
ignores one with a warning) and, being causal, the padding cannot change the earlier positions, so only the ids
are passed, as RWKV users do. Output: LM logits (2, 32, 1000).
"""
import torch
from torch import nn
from transformers import RwkvConfig, RwkvForCausalLM

batch_size = 2
seq_len = 32
vocab_size = 1000
pad_id = 1  # the GPT-NeoX tokenizer's <|padding|>


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = RwkvForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    input_ids[1, -5:] = pad_id
    return [input_ids]


def get_init_inputs():
    # RWKV/rwkv-4-169m-pile config.json. Kept: layer_norm_epsilon 1e-5, context_length 1024, untied head,
    # bos / eos 0.
    return [RwkvConfig(
        vocab_size=vocab_size,  # published 50277
        context_length=1024,
        hidden_size=128,  # published 768
        attention_hidden_size=128,  # published 768
        intermediate_size=512,  # published 3072
        num_hidden_layers=4,  # published 12
        layer_norm_epsilon=1e-5,
        rescale_every=2,  # published 6
        tie_word_embeddings=False,
        bos_token_id=0,
        eos_token_id=0,
    )]
