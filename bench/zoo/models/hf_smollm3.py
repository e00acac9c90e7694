"""SmolLM3 decoder LM (Llama-style pre-RMSNorm blocks with GQA and a SwiGLU MLP, but NoPE interleaving: every 4th
layer (no_rope_layers[i] = 0 for i = 3, 7, 11, ...) skips RoPE entirely and attends with position-free q / k,
the other layers use RoPE with theta 5e6; full causal attention in every layer (no sliding window); final RMSNorm;
tied embeddings), after `HuggingFaceTB/SmolLM3-3B`, shrunk.

SmolLM3ForCausalLM.
Shrunk: hidden 2048 -> 256, 36 layers -> 4 (layers 0-2 RoPE, layer 3 NoPE: the published no_rope_layer_interval 4
kept), 16 heads -> 8, 4 kv heads -> 2 (the published 4:1 GQA ratio kept), head_dim 128 -> 32,
intermediate 11008 -> 1376 (the published 5.375x kept), vocab 128256 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (no bos: the published
bos_token_id is None). The published pad (<|finetune_right_pad_id|> = 128004) and eos (<|im_end|> = 128012) ids
lie outside the shrunk vocab, so they are remapped to 1 and 0. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import SmolLM3Config, SmolLM3ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 1  # published 128004
eos_token_id = 0  # published 128012


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SmolLM3ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # HuggingFaceTB/SmolLM3-3B config.json. Kept: silu, rms_norm_eps 1e-6, rope_theta 5e6, no rope scaling,
    # no_rope_layer_interval 4, no sliding window, max_position_embeddings 65536, no attention / MLP bias,
    # attention_dropout 0, tied embeddings, bos None.
    return [SmolLM3Config(
        vocab_size=vocab_size,  # published 128256
        hidden_size=256,  # published 2048
        intermediate_size=1376,  # published 11008
        num_hidden_layers=4,  # published 36
        num_attention_heads=8,  # published 16
        num_key_value_heads=2,  # published 4
        hidden_act="silu",
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 5000000.0},
        max_position_embeddings=65536,
        no_rope_layer_interval=4,
        use_sliding_window=False,
        attention_bias=False,
        mlp_bias=False,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,  # published 128004
        bos_token_id=None,
        eos_token_id=eos_token_id,  # published 128012
    )]
