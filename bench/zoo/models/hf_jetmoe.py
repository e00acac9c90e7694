"""JetMoE decoder LM (Shen et al. 2024, "JetMoE: Reaching Llama2 Performance with 0.1M Dollars", arXiv 2404.07413;
ModuleFormer-style sparse layers), after `jetmoe/jetmoe-8b`, shrunk.

JetMoeForCausalLM. Both sublayers of every pre-RMSNorm block are sparse mixtures with top-2 softmax-over-top-k
routing (router logits in fp32, the top-2 logits softmaxed), dispatched by sorting tokens per expert and splitting
them by the per-expert counts (`expert_size.tolist()`, a device-to-host read) into a Python loop over the experts:
- mixture of attention heads (MoA): each of 8 attention experts owns a query projection (hidden -> kv_heads x
  head_dim) and an output projection back; a token's top-2 experts give it 2 x kv_heads query heads, while one
  shared kv_proj gives kv_heads key/value heads that are tiled (`repeat`, not interleaved) over the 2 expert slots;
  RoPE (theta 1e4) on q and k, causal attention, then each expert's output projection, gate-weighted and summed,
  plus a learned bias;
- MoE MLP: 8 SwiGLU experts (fused gate/up input projection, SiLU), gate-weighted sum plus a learned bias.
Final RMSNorm; LM head tied to the embedding. (The two per-block RMSNorms are built without the config's eps and
use the class default 1e-6; only the final norm reads rms_norm_eps.)
Shrunk: hidden 2048 -> 256, 24 layers -> 2, 16 key/value heads -> 8, kv_channels (head_dim) 128 -> 32 (kv_heads x
head_dim = hidden kept, as published; query heads = 2 x kv heads = 16), expert intermediate 5632 -> 704 (the
published 2.75x hidden kept), vocab 32000 -> 1000. 8 attention experts, 8 MLP experts and top-2 are kept.
Inputs: input_ids (2, 64) starting with <s> (id 1), attention_mask with the second sample right-padded by 7 tokens
(the tokenizer has no pad token; padded with </s> = 2, as users set pad = eos). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import JetMoeConfig, JetMoeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = 1
eos_token_id = 2
pad_token_id = eos_token_id  # no pad token published; pad = eos


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = JetMoeForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -7:] = pad_token_id  # pad
    attention_mask[1, -7:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # jetmoe/jetmoe-8b config.json. Kept: silu, 8 experts (moe_num_experts) with top-2 (moe_top_k) for both the
    # attention and the MLP mixtures, rms_norm_eps 1e-5, rope_theta 1e4 (rotary_percent 1.0),
    # max_position_embeddings 4096, aux_loss_coef 0.01, initializer_range 0.01, tied embeddings, bos 1 / eos 2.
    return [JetMoeConfig(
        vocab_size=vocab_size,  # published 32000
        hidden_size=256,  # published 2048
        num_hidden_layers=2,  # published 24
        num_key_value_heads=8,  # published 16 (query heads = 2 x this, published 32)
        kv_channels=32,  # published 128
        intermediate_size=704,  # published 5632 (ffn_hidden_size, per expert)
        max_position_embeddings=4096,
        activation_function="silu",
        num_local_experts=8,
        num_experts_per_tok=2,
        aux_loss_coef=0.01,
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,
        pad_token_id=pad_token_id,
        tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        rms_norm_eps=1e-5,
        initializer_range=0.01,
        attention_dropout=0.0,
    )]
