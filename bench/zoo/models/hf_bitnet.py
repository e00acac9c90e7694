"""BitNet b1.58 decoder LM (Ma et al. 2025, "BitNet b1.58 2B4T Technical Report", arXiv 2504.12285), after
`microsoft/bitnet-b1.58-2B-4T`, shrunk, as the plain (unquantized) module.

BitNetForCausalLM. Llama-style pre-RMSNorm blocks with two extra "sub-layer" RMSNorms (SubLN): GQA self-attention
with RoPE (theta 5e5) whose concatenated head outputs pass through attn_sub_norm (RMSNorm over hidden) before o_proj,
and a gated MLP with squared-ReLU gating, down_proj(ffn_sub_norm(relu(gate(x))^2 * up(x))), with ffn_sub_norm an
RMSNorm over the intermediate width. No biases anywhere. Final RMSNorm, LM head tied to the embedding.
The published checkpoint carries quantization_config {quant_method "bitnet", linear_class "autobitlinear",
quantization_mode "online"}, which makes from_pretrained swap every projection for a ternary-weight / 8-bit-activation
AutoBitLinear; it is left out here (a config built in code has none), so all projections are plain nn.Linear in
float32: this file is the module's architecture, not its 1.58-bit arithmetic.
Shrunk: hidden 2560 -> 256, 30 layers -> 2, 20 heads -> 8, 5 kv heads -> 2 (the published 4:1 GQA ratio kept),
head_dim 128 -> 32, intermediate 6912 -> 692 (the published 2.7x hidden kept), vocab 128256 -> 1000.
Inputs: input_ids (2, 64) starting with <|begin_of_text|> (the Llama-3 tokenizer adds it), attention_mask with the
second sample right-padded by 5 tokens. The tokenizer has no pad token; users pad with eos. The published bos
(128000) and eos (<|end_of_text|> = 128001) lie outside the shrunk vocab, so they are remapped to 1 and 2.
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import BitNetConfig, BitNetForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = 1  # published 128000
eos_token_id = 2  # published 128001
pad_token_id = eos_token_id  # no pad token published; pad = eos


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BitNetForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id  # pad
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # microsoft/bitnet-b1.58-2B-4T config.json. Kept: relu2, rms_norm_eps 1e-5, rope_theta 5e5, no rope scaling,
    # max_position_embeddings 4096, no attention bias, attention_dropout 0, initializer_range 0.02,
    # tied embeddings. Left out: quantization_config (see above).
    return [BitNetConfig(
        vocab_size=vocab_size,  # published 128256
        hidden_size=256,  # published 2560
        intermediate_size=692,  # published 6912
        num_hidden_layers=2,  # published 30
        num_attention_heads=8,  # published 20
        num_key_value_heads=2,  # published 5
        hidden_act="relu2",
        max_position_embeddings=4096,
        initializer_range=0.02,
        rms_norm_eps=1e-5,
        pad_token_id=None,  # as published
        bos_token_id=bos_token_id,  # published 128000
        eos_token_id=eos_token_id,  # published 128001
        tie_word_embeddings=True,
        attention_bias=False,
        attention_dropout=0.0,
        rope_parameters={"rope_type": "default", "rope_theta": 500000.0},
    )]
