"""Cohere Command-R decoder LM (Cohere 2024), after `CohereForAI/c4ai-command-r-v01`, shrunk.

CohereForCausalLM. Each block is a *parallel* block: one LayerNorm (weight only, no bias, computed in float32,
eps 1e-5) feeds both the self-attention and the SwiGLU MLP, and the block returns x + attn(ln(x)) + mlp(ln(x)) (no
second norm). Full multi-head attention (kv heads = heads in v01) with RoPE (theta 8e6) in the *interleaved* form:
cos / sin are repeat_interleave'd over adjacent pairs and rotate_half swaps even / odd lanes (stack(-x2, x1)) instead
of Llama's half split, with q / k rotated in float32. No q / k norm (use_qk_norm False in v01). Final weight-only
LayerNorm, LM head tied to the embedding, and the logits multiplied by logit_scale 0.0625.
Shrunk: hidden 8192 -> 256, 40 layers -> 2, 64 heads -> 8 (MHA kept: 8 kv heads), head_dim 128 -> 32,
intermediate 22528 -> 704 (the published 2.75x hidden kept), vocab 256000 -> 1000.
Inputs: input_ids (2, 64) starting with <BOS_TOKEN> (id 5; the tokenizer adds it), attention_mask with the second
sample right-padded by 6 tokens with <PAD> (id 0). (The Cohere tokenizer's default padding_side is left; the tail is
padded here as in the rest of the zoo: positions do not depend on the mask in this model, only the mask does.)
The published eos (<|END_OF_TURN_TOKEN|> = 255001) lies outside the shrunk vocab, so it is remapped to 999.
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import CohereConfig, CohereForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0
bos_token_id = 5
eos_token_id = 999  # published 255001


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = CohereForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(7, vocab_size - 1, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -6:] = pad_token_id  # pad
    attention_mask[1, -6:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # CohereForAI/c4ai-command-r-v01 config.json. Kept: silu, layer_norm_eps 1e-5, logit_scale 0.0625,
    # rope_theta 8e6, no rope scaling, max_position_embeddings 8192, no attention bias, use_qk_norm False,
    # attention_dropout 0, initializer_range 0.02, tied embeddings, pad 0 / bos 5.
    return [CohereConfig(
        vocab_size=vocab_size,  # published 256000
        hidden_size=256,  # published 8192
        intermediate_size=704,  # published 22528
        logit_scale=0.0625,
        num_hidden_layers=2,  # published 40
        num_attention_heads=8,  # published 64
        num_key_value_heads=8,  # published 64
        hidden_act="silu",
        max_position_embeddings=8192,
        initializer_range=0.02,
        layer_norm_eps=1e-5,
        pad_token_id=pad_token_id,
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,  # published 255001
        tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 8000000.0},
        attention_bias=False,
        attention_dropout=0.0,
        use_qk_norm=False,
    )]
