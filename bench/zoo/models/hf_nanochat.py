"""NanoChat (Karpathy's nanochat GPT: a minimal modern decoder with parameter-free RMSNorm everywhere (on the
token embeddings right after the lookup, before each attention and MLP, on each head's queries and keys after
RoPE (QK-norm), and before the head), RoPE with nanochat's rotate-half sign convention, no biases, a ReLU^2 MLP
(fc1 -> relu(x)^2 -> fc2, width 4 x hidden), an untied LM head and tanh soft-capping of the logits at 15), after
`karpathy/nanochat-d32` (the depth-32 model: model_dim = 64 x depth, head_dim 128), shrunk.

NanoChatForCausalLM.
Shrunk: hidden 2048 -> 128, 32 layers -> 2, 16 heads -> 4 (kv heads = heads as published), head_dim 128 -> 32,
intermediate 8192 -> 512 (4 x hidden kept), vocab 65536 -> 1000 (the 9 special tokens stay at the end: <|bos|>
65527 -> 991, <|assistant_end|> 65531 -> 995).
Inputs: input_ids (2, 64) starting with <|bos|>, attention_mask with the second sample right-padded by 5 tokens
(padded with <|assistant_end|>). Output: soft-capped LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import NanoChatConfig, NanoChatForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = vocab_size - 9  # <|bos|>, first of the 9 special tokens
assistant_end_id = vocab_size - 5  # <|assistant_end|>


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = NanoChatForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(0, bos_token_id, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = assistant_end_id  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # karpathy/nanochat-d32 model config (n_layer 32, n_embd 2048, n_head 16, n_kv_head 16, vocab 65536,
    # sequence_len 2048) in the transformers form. Kept: hidden_act relu2, intermediate = 4 x hidden,
    # rope_theta 1e4, max_position_embeddings 2048, final_logit_softcapping 15, no attention bias, untied head,
    # rms_norm_eps 1e-6 (as the transformers conversions use), attention_dropout 0.
    return [NanoChatConfig(
        vocab_size=vocab_size,  # published 65536
        hidden_size=128,  # published 2048
        intermediate_size=512,  # published 8192
        num_hidden_layers=2,  # published 32
        num_attention_heads=4,  # published 16
        num_key_value_heads=4,  # published 16
        max_position_embeddings=2048,
        hidden_act="relu2",
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        final_logit_softcapping=15.0,
        attention_bias=False,
        attention_dropout=0.0,
        tie_word_embeddings=False,
        bos_token_id=bos_token_id,  # published 65527
        eos_token_id=assistant_end_id,  # published 65531
        pad_token_id=assistant_end_id,  # published 65531
    )]
