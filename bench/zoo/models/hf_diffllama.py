"""DiffLlama (a Llama decoder whose attention is the Differential Transformer's differential attention: the query
heads are paired (head h with head h + H/2), each pair giving two softmax attention maps softmax(Q1 K1^T) and
softmax(Q2 K2^T) over a shared value of twice the head width (the two halves of the kv heads' values side by
side); the output is softmax(Q1 K1^T) V - lambda * softmax(Q2 K2^T) V with a learned, re-parameterised
lambda = exp(lq1 . lk1) - exp(lq2 . lk2) + lambda_init (lambda_init = 0.8 - 0.6 exp(-0.3 layer_idx), so it
differs per layer), followed by a per-head RMS GroupNorm without affine weights and a (1 - lambda_init) scale;
otherwise Llama: pre-norm RMSNorm blocks, grouped-query attention, RoPE with Llama-3 frequency scaling, SwiGLU
MLP, LM head tied to the embeddings), after `kajuma/DiffLlama-0.3B-handcut` (a Llama-3.2-1B-shaped checkpoint),
shrunk.

DiffLlamaForCausalLM.
Shrunk: hidden 2048 -> 128, 16 layers -> 3 (three different lambda_init values), 32 heads -> 8, 8 kv heads -> 2
(GQA kept), head_dim 64 -> 16, intermediate 8192 -> 384, vocab 128256 -> 1000 (bos 128000 -> 998,
eos 128001 -> 999).
Inputs: input_ids (2, 64) starting with <|begin_of_text|>, attention_mask with the second sample right-padded
by 5 tokens (padded with eos, as Llama-3 tokenizers pad). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import DiffLlamaConfig, DiffLlamaForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id, eos_token_id = vocab_size - 2, vocab_size - 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DiffLlamaForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, bos_token_id, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = eos_token_id  # pad = eos
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # kajuma/DiffLlama-0.3B-handcut config.json. Kept: silu, rms_norm_eps 1e-5, Llama-3 rope scaling (theta 5e5,
    # factor 32, low / high freq factor 1 / 4, original 8192), max_position_embeddings 131072, no attention /
    # MLP bias, lambda_std_dev 0.1, tied head, attention_dropout 0.
    return [DiffLlamaConfig(
        vocab_size=vocab_size,  # published 128256
        hidden_size=128,  # published 2048
        intermediate_size=384,  # published 8192
        num_hidden_layers=3,  # published 16
        num_attention_heads=8,  # published 32
        num_key_value_heads=2,  # published 8
        head_dim=16,  # published 64
        hidden_act="silu",
        max_position_embeddings=131072,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
        attention_bias=False,
        attention_dropout=0.0,
        lambda_std_dev=0.1,
        tie_word_embeddings=True,
        bos_token_id=bos_token_id,  # published 128000
        eos_token_id=eos_token_id,  # published 128001
    )]
