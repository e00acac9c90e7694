"""Granite 4.0 hybrid decoder LM (IBM 2025, Granite 4.0-H: Mamba-2 layers interleaved with a few attention layers,
a fine-grained MoE plus an always-on shared MLP in every block, muP-style multipliers), after
`ibm-granite/granite-4.0-h-tiny`, shrunk.

GraniteMoeHybridForCausalLM. Token embeddings times embedding_multiplier (12); every block is pre-RMSNorm with
- a mixer: either a Mamba-2 layer (in_proj to gate / x,B,C / dt; causal depthwise conv1d of width 4 with SiLU over
  x,B,C; chunked SSD scan with per-head scalar decay A, dt = softplus(dt + dt_bias), skip D; gated RMSNorm with the
  SiLU gate; out_proj; padded positions zeroed before in_proj and after the conv) or GQA causal self-attention with
  NoPE (position_embedding_type "nope": no rotary embedding at all) and softmax scale attention_multiplier instead
  of 1/sqrt(head_dim);
- an MLP: a top-k softmax-over-top-k routed mixture of SwiGLU experts (3-D stacked expert weights, Python loop over
  the experts that received tokens) plus a shared SwiGLU MLP applied to every token, summed;
each branch added to the residual scaled by residual_multiplier (0.22). Final RMSNorm, LM head tied to the
embedding, logits divided by logits_scaling (6).
Published layout: 40 layers, attention at layers 5, 15, 25, 35, Mamba-2 elsewhere. Shrunk to 4 layers:
[mamba, mamba, attention, mamba] (an attention layer between runs of Mamba-2 layers).
Shrunk: hidden 1536 -> 192, 40 layers -> 4, 12 heads -> 6, 4 kv heads -> 2 (the published 3:1 GQA ratio kept),
head_dim 128 -> 32 (and attention_multiplier 1/128 -> 1/32, published = 1/head_dim), expert intermediate 512 -> 64
and shared intermediate 1024 -> 128 (the published 1/3 and 2/3 of hidden kept), 48 Mamba heads -> 6 (Mamba head
dim 64 and expand 2 kept: 6 x 64 = 2 x 192), mamba chunk 256 -> 16 (so the 64-token input spans 4 chunks),
vocab 100352 -> 1000. 64 experts with top-6 routing and d_state 128 are kept.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 4 tokens (no bos: the tokenizer's
add_bos_token is off). The published pad (<|pad|> = 100256) and bos / eos (<|end_of_text|> = 100257) lie outside
the shrunk vocab, so they are remapped to 1 and 0. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import GraniteMoeHybridConfig, GraniteMoeHybridForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 1  # published 100256
eos_token_id = 0  # published 100257 (= bos)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GraniteMoeHybridForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # ibm-granite/granite-4.0-h-tiny config.json. Kept: silu, rms_norm_eps 1e-5, embedding_multiplier 12,
    # residual_multiplier 0.22, logits_scaling 6, position_embedding_type "nope" (rope_theta 1e4 published but
    # unused), 64 local experts, top-6, mamba d_state 128, d_conv 4, expand 2, head dim 64, n_groups 1, conv bias on,
    # proj bias off, no attention bias, attention_dropout 0, max_position_embeddings 131072, router_aux_loss_coef 0,
    # initializer_range 0.1, tied embeddings.
    return [GraniteMoeHybridConfig(
        vocab_size=vocab_size,  # published 100352
        hidden_size=192,  # published 1536
        intermediate_size=64,  # published 512 (per expert)
        shared_intermediate_size=128,  # published 1024
        num_hidden_layers=4,  # published 40
        layer_types=["mamba", "mamba", "attention", "mamba"],  # published: attention at 5, 15, 25, 35 of 40
        num_attention_heads=6,  # published 12
        num_key_value_heads=2,  # published 4
        hidden_act="silu",
        max_position_embeddings=131072,
        initializer_range=0.1,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        position_embedding_type="nope",
        attention_bias=False,
        attention_dropout=0.0,
        embedding_multiplier=12.0,
        logits_scaling=6.0,
        residual_multiplier=0.22,
        attention_multiplier=1.0 / 32,  # published 0.0078125 = 1 / head_dim (128)
        num_local_experts=64,
        num_experts_per_tok=6,
        router_aux_loss_coef=0.0,
        mamba_n_heads=6,  # published 48
        mamba_n_groups=1,
        mamba_d_state=128,
        mamba_d_head=64,
        mamba_d_conv=4,
        mamba_expand=2,
        mamba_chunk_size=16,  # published 256
        mamba_conv_bias=True,
        mamba_proj_bias=False,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,  # published 100256
        bos_token_id=eos_token_id,  # published 100257
        eos_token_id=eos_token_id,  # published 100257
    )]
