"""Cohere2 / Command R7B (parallel attention + MLP off one LayerNorm, 3 sliding-window layers then 1 global
layer, RoPE on the sliding layers only, scaled tied LM head), after `CohereForAI/c4ai-command-r7b-12-2024`, shrunk.

4 layers = one period of the published pattern (sliding_window_pattern 4: sliding, sliding, sliding, global).
Shrunk: hidden 4096 -> 128, 32 layers -> 4, 32 heads -> 4, 8 kv heads -> 2, intermediate 14336 -> 448,
sliding window 4096 -> 16 (smaller than the 64-token input, so the window bites), vocab 256000 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample left-padded (Cohere's tokenizer pads left).
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import Cohere2Config, Cohere2ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Cohere2ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(6, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, :4] = 0  # pad
    attention_mask[1, :4] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # CohereForAI/c4ai-command-r7b-12-2024 config.json. Kept: silu, layer_norm_eps 1e-5, logit_scale 0.25,
    # rope_theta 50000, sliding_window_pattern 4, no attention bias, tied embeddings, pad 0 / bos 5.
    return [Cohere2Config(
        vocab_size=vocab_size,  # published 256000
        hidden_size=128,  # published 4096
        intermediate_size=448,  # published 14336
        num_hidden_layers=4,  # published 32
        num_attention_heads=4,  # published 32
        num_key_value_heads=2,  # published 8
        layer_types=["sliding_attention"] * 3 + ["full_attention"],
        sliding_window=16,  # published 4096
        logit_scale=0.25,
        rope_parameters={"rope_type": "default", "rope_theta": 50000.0},
        hidden_act="silu",
        layer_norm_eps=1e-5,
        attention_bias=False,
        tie_word_embeddings=True,
        pad_token_id=0,
        bos_token_id=5,
        eos_token_id=999,  # published 255001
    )]
