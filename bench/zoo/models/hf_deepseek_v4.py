"""DeepSeek-V4 MoE decoder LM (`deepseek-ai/DeepSeek-V4-Flash-Base`), shrunk: a decoder whose residual stream is
widened into hc_mult parallel streams joined by manifold-constrained hyper-connections, and whose attention mixes a
sliding window with compressed long-range KV. Every block keeps the hidden state as (batch, seq, 4 streams, hidden):
an mHC module flattens and RMS-normalises the 4 streams, one Linear gives pre (sigmoid), post (2 sigmoid) and a
4 x 4 comb logit matrix that is softmaxed and then projected towards a doubly-stochastic matrix by 20 Sinkhorn-Knopp
row / column normalisations; the streams are collapsed with pre into the block input, and the block output is
expanded with post and added to comb^T @ streams. Attention is shared-KV multi-query (one KV head read as both K
and V), low-rank queries (q_a -> RMSNorm -> q_b, an unweighted RMSNorm per head), partial interleaved RoPE on the
trailing rope slice of each head (undone on the output with the conjugate rotation), a learnable per-head sink
logit in the softmax, and a grouped low-rank output projection (block-diagonal bmm per head group, then a Linear).
Three attention kinds: sliding-window only; HCA (heavily compressed attention: every 16 tokens are pooled into one
KV entry by a softmax gate over the window plus a learned position bias, RMS-normalised and RoPE'd at the window
position, appended to the keys with a block-causal bias); CSA (compressed sparse attention: overlapping windows of
2 x 4 tokens pooled the same way, then a Lightning Indexer (its own compressor at index_head_dim, per-head ReLU dot
products weighted by a projection of the token) scores the compressed entries per query, masks the future ones and
keeps a top-k, so each query sees its sliding window plus its top-k compressed entries, chosen per token). The
MoE layers route with sqrt(softplus) scores: the first layers by a frozen token-id -> expert-ids hash table
(tid2eid[input_ids]), the later ones by top-k on scores plus a correction bias; routed SwiGLU experts with the
gate / up pre-activations clamped to swiglu_limit 10, plus one shared expert, routed weights renormalised and scaled
by 1.5. A final hyper-head collapses the 4 streams before the RMSNorm and the untied LM head.

DeepseekV4ForCausalLM (eager attention: the only one the class supports; use_cache left at its default, so the
forward fills a DynamicCache built from the per-layer V4 cache classes, whose compressor buffers hold the leftover
tokens of incomplete windows).
Shrunk (from the DeepseekV4Config defaults, which are V4-Flash's): hidden 4096 -> 64, 43 layers -> 4 laid out as
(sliding, CSA, HCA, CSA) with (hash, hash, top-k, top-k) MoE (so each attention kind and both routers appear;
published: 3 hash layers, an HCA/CSA interleave), 64 heads -> 4 with head_dim 512 -> 64 (rope slice 64 -> 8, the
published 1/8 kept), q_lora_rank 1024 -> 32, o_groups 8 -> 2 with o_lora_rank 1024 -> 32, 256 routed experts ->
8, top-6 -> top-2, moe_intermediate 2048 -> 64, indexer 64 heads x 128 -> 4 x 16 with index_topk 512 -> 4,
HCA compress rate 128 -> 16 (CSA 4 kept), sliding window 128 -> 16 (so with 64 tokens every mechanism is active:
16 CSA entries of which each late query keeps 4, 4 HCA entries), vocab 129280 -> 1000.
The hash table tid2eid (zeros in the class, filled by the checkpoint: every token would pick expert 0 top_k times)
gets a fixed random table of distinct experts per token id.
Kept: hc_mult 4, 20 Sinkhorn iterations, hc_eps 1e-6, sqrtsoftplus scoring, routed scale 1.5, 1 shared expert,
swiglu_limit 10, rope theta 1e4 (main) / 1.6e5 with YaRN factor 16 (compressed layers), rms_norm_eps 1e-6.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 6 tokens.
Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import DeepseekV4Config, DeepseekV4ForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = vocab_size - 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DeepseekV4ForCausalLM(config)
        # tid2eid is a frozen table shipped in the checkpoint (zeros here); draw distinct experts per token id
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for layer in self.model.model.layers:
                gate = layer.mlp.gate
                if hasattr(gate, "tid2eid"):
                    table = torch.stack([
                        torch.randperm(config.n_routed_experts, generator=gen)[: config.num_experts_per_tok]
                        for _ in range(config.vocab_size)
                    ])
                    gate.tid2eid.copy_(table)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(2, pad_token_id, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -6:] = pad_token_id
    attention_mask[1, -6:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # DeepseekV4Config defaults (deepseek-ai/DeepSeek-V4-Flash-Base). Kept: hc_mult 4, hc_sinkhorn_iters 20,
    # hc_eps 1e-6, scoring_func sqrtsoftplus, norm_topk_prob, routed_scaling_factor 1.5, n_shared_experts 1,
    # swiglu_limit 10, CSA compress rate 4, partial rotary 1/8, rope_theta 1e4, compress_rope_theta 1.6e5,
    # num_key_value_heads 1 (shared K=V), silu, rms_norm_eps 1e-6, untied head.
    return [DeepseekV4Config(
        vocab_size=vocab_size,  # published 129280
        hidden_size=64,  # published 4096
        moe_intermediate_size=64,  # published 2048
        num_hidden_layers=4,  # published 43
        layer_types=[
            "sliding_attention",
            "compressed_sparse_attention",
            "heavily_compressed_attention",
            "compressed_sparse_attention",
        ],
        mlp_layer_types=["hash_moe", "hash_moe", "moe", "moe"],  # published: 3 hash layers, then top-k
        num_attention_heads=4,  # published 64
        num_key_value_heads=1,
        head_dim=64,  # published 512
        q_lora_rank=32,  # published 1024
        o_groups=2,  # published 8
        o_lora_rank=32,  # published 1024
        n_routed_experts=8,  # published 256
        num_experts_per_tok=2,  # published 6
        n_shared_experts=1,
        compress_rates={"compressed_sparse_attention": 4, "heavily_compressed_attention": 16},  # HCA: 128
        sliding_window=16,  # published 128
        index_n_heads=4,  # published 64
        index_head_dim=16,  # published 128
        index_topk=4,  # published 512
        rope_parameters={"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 65536},
        max_position_embeddings=1048576,
        pad_token_id=pad_token_id,
        bos_token_id=0,
        eos_token_id=1,
    )]
