"""Qwen4-Exp text decoder LM (`Qwen/Qwen4-Exp`'s language model, Qwen4ExpForCausalLM), shrunk: a hybrid Gated DeltaNet
/ sparse-softmax MoE decoder whose residual stream is 4 hyper-connection streams and whose early layers read hashed
n-gram embeddings. The token embedding is repeated into hc_count = 4 streams (hidden x 4 features); every sub-layer
goes through a gated residual: the streams are RMS-normalised per stream ((1 + w) weights), a low-rank mixer (Linear
down, SiLU of it / 4, Linear up, sigmoid) gives per-stream per-channel weights that average the streams into the block
input, and the block output is added back to every stream times its own injection weight 2 sigmoid(Linear / 4). Three
of every four layers are Gated DeltaNet linear attention (causal depthwise conv on q / k / v, L2-normalised q / k,
sigmoid beta, decay exp(-exp(A_log) softplus(a + dt_bias)), the chunked delta rule, a gated RMSNorm with SiLU(z));
every fourth is QSA "indexed" attention: a token indexer (2 query heads and one key head from one projection, RMSNorm,
RoPE) averages the visible keys in blocks of compress_ratio tokens, scores each block by the head sum of ReLU(q . k) /
sqrt(d), keeps the top budget / ratio blocks plus the unfinished tail block, and that selection is ANDed into the
causal mask of a gated softmax attention (q_proj also gives a per-channel sigmoid output gate, q / k RMSNorm, partial
RoPE on 1/4 of the head in the text MRoPE layout, GQA). PLE layers (per-layer embeddings, on linear-attention layers)
hash the 2- and 3-grams of the token ids (per-layer odd multipliers, XOR, modulo a distinct prime per head, context
reset after each EOS) into n-gram embedding heads, project them to one key per stream and a shared value, gate the
value per stream by sigmoid of the signed square root of the scaled key / stream dot product, and add it plus a SiLU
of a dilated (dilation 3, kernel 4) causal depthwise conv of it to the streams. Every MLP is an MoE (softmax top-k,
renormalised, plus a sigmoid-gated shared expert). A last gated residual without injection collapses the 4 streams;
untied LM head (no final norm).

Shrunk: hidden 2048 -> 64, 40 layers -> 4 (linear, linear, linear, indexed: the published 3:1 pattern), 16 heads (2
kv) of head_dim 256 -> 4 (2) of 32, linear-attention heads 16 key / 32 value of 128 -> 2 / 4 of 16, 512 experts of
width 512 (top-10) -> 8 of width 32 (top-2), shared expert 512 -> 32, hc_lowrank 320 -> 16, indexer 2 heads of 16 with
budget 16 tokens in blocks of 4 (48 tokens: the selection is sparse from position 16 on), PLE on layers 1 and 2 with 4
hashed heads per n-gram order (8 heads of 8 dims: ple_embed_dim 64) and prime head vocabularies above 500 (published
base 20M), vocab 248320 -> 1000, mrope_section [11, 11, 10] -> [2, 1, 1] (rotary dim 8).
Kept: hc_count 4, ngram_size 3, ple_conv_kernel_size 4, linear_conv_kernel_dim 4, silu, rms_norm_eps 1e-6,
norm_topk_prob. RoPE: theta 1e7 on 1/4 of each head (Qwen3-Next's published values; the class default is theta 1e4 on
the whole head; the indexer head must hold the rotary dims). The PLE dilated conv weights are zeros in the class (its
branch would be an exact zero until trained): they get fixed small values here.
Inputs: input_ids (2, 48) with an EOS (id 1) in the middle of the first sample (resets its n-gram context),
attention_mask with the second sample right-padded by 6. Output: LM logits (2, 48, 1000).
"""
import torch
from torch import nn
from transformers import Qwen4ExpForCausalLM, Qwen4ExpTextConfig

batch_size = 2
seq_len = 48
vocab_size = 1000
pad_token_id = 0
eos_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Qwen4ExpForCausalLM(config)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for layer in self.model.model.layers:
                if layer.ple is not None:
                    w = layer.ple.conv1d.weight
                    w.copy_(torch.randn(w.shape, generator=gen) * 0.3)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[0, 20] = eos_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -6:] = pad_token_id
    attention_mask[1, -6:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Qwen/Qwen4-Exp text_config (the Qwen4ExpTextConfig defaults, "published" below). Kept: full_attention_interval
    # 4, hc_count 4, ngram_size 3, ple_conv_kernel_size 4, silu (also the linear-attention output gate), 1e-6 eps,
    # norm_topk_prob, untied LM head. RoPE as Qwen3-Next's (theta 1e7, partial 0.25; the class default: 1e4, full).
    return [Qwen4ExpTextConfig(
        vocab_size=vocab_size,  # published 248320
        hidden_size=64,  # published 2048
        num_hidden_layers=4,  # published 40
        num_attention_heads=4,  # published 16
        num_key_value_heads=2,
        head_dim=32,  # published 256
        linear_key_head_dim=16,  # published 128
        linear_value_head_dim=16,  # published 128
        linear_num_key_heads=2,  # published 16
        linear_num_value_heads=4,  # published 32
        moe_intermediate_size=32,  # published 512
        shared_expert_intermediate_size=32,  # published 512
        num_experts=8,  # published 512
        num_experts_per_tok=2,  # published 10
        hc_lowrank=16,  # published 320
        ple_layer_ids=[1, 2],  # one-indexed; none in the class default
        ple_embed_dim=64,  # defaults to hidden_size
        heads_per_ngram=4,  # published 8
        ngram_vocab_size_base=500,  # published 20_000_000
        split_ngram_parts=1,  # published 512 (checkpoint sharding only)
        indexer_n_heads=2,
        indexer_kv_heads=1,
        indexer_head_dim=16,
        indexer_budget=16,
        indexer_compress_ratio=4,
        rope_parameters={"rope_type": "default", "rope_theta": 1e7, "partial_rotary_factor": 0.25,
                         "mrope_section": [2, 1, 1], "mrope_interleaved": True},
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
    )]
