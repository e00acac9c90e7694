"""Gemma 4 text decoder in its Mixture-of-Experts layout (Google 2026, the `google/gemma-4-26B-A4B` family,
Gemma4ForCausalLM), shrunk. What is new against Gemma 3 (hf_gemma3_text) and kept here:
  - interleaved local / global attention: sliding-window layers (window 16 here) and full-attention layers with a
    DIFFERENT geometry: the global layers use a wider head (global_head_dim, 2 x the local head_dim here), fewer
    key/value heads (num_global_key_value_heads 1 -> multi-query), and "K = V" attention (attention_k_eq_v): the
    global layers have no v_proj, the value is the (pre-RoPE) output of k_proj, normalised by its own scale-free
    RMSNorm (v_norm) while the key goes through k_norm and RoPE;
  - per-layer-type RoPE: local layers default RoPE theta 1e4 over the whole head, global layers "proportional"
    RoPE (theta 1e6, partial_rotary_factor 0.25: only a quarter of the head's frequencies rotate, the rest are
    zero-frequency pass-through);
  - q_norm / k_norm RMSNorms per head, attention scaling 1.0 (no 1/sqrt(d): the norms set the scale);
  - every decoder layer runs a dense GeGLU MLP and a sparse MoE block IN PARALLEL on the same residual: the MoE
    router reads the residual stream itself (scale-free RMSNorm, a learned per-channel scale, 1/sqrt(hidden)),
    softmax in fp32, top-k, renormalised, then multiplied by a learned per-expert scale; the expert input gets its
    own pre-norm (pre_feedforward_layernorm_2); the dense and expert outputs get separate post-norms and are summed
    before the shared post_feedforward_layernorm; experts are stored as 3-D gate_up / down tensors;
  - Gemma sandwich norms (pre and post norm around attention and feed-forward), sqrt(hidden)-scaled embeddings,
    per-layer scalar buffer, tied LM head with final logit soft-capping (tanh, cap 30).

Shrunk (relative to the Gemma4TextConfig defaults, no hub config is read): hidden 2304 -> 64, 30 layers -> 4
(3 sliding + 1 full, the default 5:1 pattern cut to 3:1 so that a global layer is present), 8 heads of 256 -> 4
of 16, 4 kv heads -> 2, global head dim 512 -> 32, global kv heads -> 1, dense intermediate 9216 -> 128, the
checkpoint's large routed-expert pool -> 8 experts of top-2 with expert intermediate 32, sliding window 512 -> 16,
vocab 262144 -> 1024 (pad 0, eos 1, bos 2 kept). Per-layer input embeddings (PLE, used by the small "E" models)
are off, as in the MoE model.
Inputs: input_ids (2, 48) starting with <bos>, attention_mask (2, 48) whose second sample is left-padded by 5.
Output: LM logits (2, 48, 1024).
"""
import torch
from torch import nn
from transformers import Gemma4ForCausalLM, Gemma4TextConfig

batch_size = 2
seq_len = 48
vocab_size = 1024
pad_token_id, eos_token_id, bos_token_id = 0, 1, 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Gemma4ForCausalLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, 0] = bos_token_id
    # second sample left-padded by 5 (Gemma pads left for batched generation)
    input_ids[1, :5] = pad_token_id
    input_ids[1, 5] = bos_token_id
    attention_mask[1, :5] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Kept: gelu_pytorch_tanh, rms_norm_eps 1e-6, tied embeddings, no attention bias, k_eq_v on global layers,
    # default per-layer-type rope_parameters (sliding: default theta 1e4; full: proportional, factor 0.25, 1e6).
    return [Gemma4TextConfig(
        vocab_size=vocab_size,  # published 262144
        hidden_size=64,  # default 2304
        intermediate_size=128,  # dense MLP
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,  # default 256
        global_head_dim=32,  # default 512
        num_global_key_value_heads=1,
        attention_k_eq_v=True,
        sliding_window=16,  # default 512
        layer_types=["sliding_attention"] * 3 + ["full_attention"],
        final_logit_softcapping=30.0,
        hidden_size_per_layer_input=0,  # no PLE in the MoE model
        vocab_size_per_layer_input=vocab_size,
        enable_moe_block=True,
        num_experts=8,
        top_k_experts=2,
        moe_intermediate_size=32,
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
        bos_token_id=bos_token_id,
    )]
