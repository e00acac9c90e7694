"""A.X K2 MoE decoder LM (SK Telecom, `skt/A.X-K2`, AXK2ForCausalLM), shrunk: a DeepSeek-V3.2-style decoder with
DeepSeek Sparse Attention (DSA) and three A.X-specific gates. Attention: MLA with a low-rank query whose up-projection
is replaced by ONE fused q_gate_proj applied to the concatenation [RMSNorm(q_latent), q_latent] (the normalised and
the raw query latent side by side), giving per head both the query (nope | rope slices) and an output gate of v_head
width; keys / values from a compressed KV latent (kv_a_proj -> RMSNorm -> kv_b_proj) plus one shared decoupled rope
key (interleaved RoPE). The DSA "lightning indexer" scores every causal key per query from the normalised query
latent (wq_b) and a LayerNorm'd single-head index key (wk), both half-split-RoPE'd, as sum_h w_h(x) * ReLU(q_h . k) with
per-token head weights; only the index_topk best keys stay unmasked, so each query attends to a token-dependent
sparse subset. The attention output is multiplied element-wise by sigmoid(gate) before o_proj. Norms: every
input_layernorm and the post-attention norm of MoE layers is a GatedRMSNorm, y = RMSNorm(x) * sigmoid(W2 SiLU(W1 y))
with a rank-16 bottleneck (an input-dependent, low-rank channel gate on the normalised stream). MLP: the first layer
dense SwiGLU, then MoE with sigmoid scores plus a correction bias for top-k choice (A.X-K2-Light style: no expert
groups), weights renormalised and scaled by 2.5, SwiGLU experts plus a shared expert. Untied LM head.

Shrunk (from the AXK2Config defaults): hidden 2048 -> 64, 48 layers -> 3 (first dense, two MoE), 32 heads -> 4,
q_lora_rank 384 -> 48, kv_lora_rank 128 -> 32, qk nope / rope / v head dims 64 / 32 / 64 -> 16 / 8 / 16, 128
experts of 512 (top-8) -> 32 of 16 (top-8), dense intermediate 5120 -> 160, indexer 16 heads x 128 -> 4 x 16 with
index_topk 2048 -> 16 (64 tokens, so the selection is sparse for all but the first 16 queries), vocab 163840 -> 1000
(bos / eos -> 0).
Kept: gated_norm_rank 16, one shared expert, routed_scaling_factor 2.5, non-grouped routing, rms eps 1e-6.
Input: input_ids (2, 64). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import AXK2Config, AXK2ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = AXK2ForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    return [torch.randint(1, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    # skt/A.X-K2 (the AXK2Config defaults), shrunk where commented.
    return [AXK2Config(
        vocab_size=vocab_size,  # published 163840
        hidden_size=64,  # published 2048
        intermediate_size=160,  # published 5120
        moe_intermediate_size=16,  # published 512
        num_hidden_layers=3,  # published 48
        num_attention_heads=4,  # published 32
        num_key_value_heads=4,  # published 32
        q_lora_rank=48,  # published 384
        kv_lora_rank=32,  # published 128
        qk_nope_head_dim=16,  # published 64
        qk_rope_head_dim=8,  # published 32
        v_head_dim=16,  # published 64
        n_routed_experts=32,  # published 128
        num_experts_per_tok=8,
        n_shared_experts=1,
        routed_scaling_factor=2.5,
        index_n_heads=4,  # published 16
        index_head_dim=16,  # published 128
        index_topk=16,  # published 2048
        gated_norm_rank=16,
        bos_token_id=0,  # published 163691 (outside the shrunk vocab)
        eos_token_id=0,
    )]
