"""Doge decoder LM (SmallDoge, "Wonderful Matrices"): Dynamic Mask Attention and a Cross-Domain Mixture of Experts.
Dynamic Mask Attention: GQA attention with per-head RMSNorm of queries and keys and RoPE, plus a learned
content-dependent mask computed from the value states: dt = exp(A * softplus(dt_proj(values))) gives one score
per kv head and key position, which is added to the causal/padding mask as an attention bias; when the key length
exceeds keep_window_size only the top-keep_window_size keys per head (by that score) stay visible, the rest are
masked. Residuals are scaled by learned per-channel vectors (input_residual, post_attention_residual). CDMoE:
a shared SwiGLU MLP plus product-key retrieval experts: the router gives two sets of sqrt(num_experts) key
logits, the top sums of pairs pick num_experts_per_tok single-neuron experts (rows of down_embed / up_embed
embedding tables), weighted by a softmax of their scores, added to the shared MLP output. Pre-norm RMSNorm blocks,
final RMSNorm, tied LM head. After `SmallDoge/Doge-160M` (published with is_moe False; the CDMoE is switched on
here as the Doge MoE variants do), shrunk.

DogeForCausalLM.
Shrunk: hidden 768 -> 128, 24 layers -> 2, 6 heads -> 4, 3 kv heads -> 2, head_dim 128 -> 32, intermediate
1536 -> 256, vocab 32768 -> 1000, keep_window_size 2048 -> 32 (so with 64 tokens the top-k dynamic masking is
active; the per-head A of the dynamic mask, zero-initialised by the library, is set to random values),
CDMoE experts 16384 (128 x 128 product keys) -> 64 (8 x 8), experts per token 64 -> 8.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 5 tokens (pad id 2 as
published). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import DogeConfig, DogeForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DogeForCausalLM(config)
        # The library zero-initialises each attention's A, which makes every key's dynamic score exp(0) = 1, so
        # the top-keep_window_size choice would be a pure tie; give A random values, as a trained checkpoint has.
        with torch.no_grad():
            for layer in self.model.model.layers:
                layer.self_attn.A.normal_(0.0, 1.0)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 0  # <|begin_of_text|>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -5:] = pad_token_id
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # SmallDoge/Doge-160M config.json. Kept: silu, rms_norm_eps 1e-6, no attention / MLP bias, dynamic RoPE
    # (theta 1e4, factor 4), max_position_embeddings 2048, norm_topk_prob False, tied head,
    # bos 0 / eos 1 / pad 2, hidden / attention dropout 0.
    return [DogeConfig(
        vocab_size=vocab_size,  # published 32768
        hidden_size=128,  # published 768
        intermediate_size=256,  # published 1536
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 6
        num_key_value_heads=2,  # published 3
        hidden_act="silu",
        rms_norm_eps=1e-6,
        max_position_embeddings=2048,
        rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 4.0},
        keep_window_size=32,  # published 2048
        is_moe=True,  # published False (Doge-160M is the dense variant)
        num_experts=64,  # published default 16384
        num_experts_per_tok=8,  # published default 64
        norm_topk_prob=False,
        tie_word_embeddings=True,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=pad_token_id,
    )]
