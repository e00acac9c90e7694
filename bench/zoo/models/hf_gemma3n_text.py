"""Gemma 3n text decoder (`google/gemma-3n-E4B`'s language model), shrunk: Gemma 3 style local / global attention
wrapped in the mobile-first machinery of Gemma 3n. The residual stream is AltUp (Baykal et al., NeurIPS 2023):
four copies of the hidden state, the extra three made by Linear projections of the embedding rescaled to its RMS;
each block first predicts all four from a tanh router over the active copy (a per-token 4 x 4 mixing matrix,
matmul over the stack), runs the block on the active copy only, then corrects every copy with the innovation
(block output minus its prediction) times per-token router coefficients + 1. The block itself: pre/post RMSNorm
attention (q/k RMSNorm, an unweighted RMSNorm on v, RoPE with theta 1e4 on sliding layers and 1e6 on global ones,
scaling 1, GQA) plus a LAuReL low-rank residual branch (Linear -> Linear -> RMSNorm, added and divided by sqrt 2),
then a pre/post RMSNorm GeGLU MLP whose gate pre-activations go through a Gaussian top-k in the first layers
(activation sparsity 0.95: everything below mean + icdf(0.95) x std of the row is cut by a ReLU). Per-layer
embeddings: a second token table (its vocabulary smaller than the LM's; ids beyond it read row 0) gives every
token a small vector per layer, averaged with a projection of the main embedding (RMSNorm'ed, x 1/sqrt 2); each
block gates it with its corrected active copy (scaled by a learned per-channel factor, GELU) and adds the
projection back to the three inactive copies. KV sharing: the last layers compute no keys or values and reuse
those of the last earlier layer of their own attention type. After the stack the copies are projected back,
rescaled to the active copy's RMS and averaged; final RMSNorm, tied LM head, logits soft-capped at 30.

Gemma3nForCausalLM with a Gemma3nTextConfig (sdpa attention, no cache).
Shrunk: hidden 2048 -> 64, 35 layers -> 6 typed (sliding, sliding, global, sliding, sliding, global) with the last
3 sharing KV (published 15 of 35; here layers 3 and 4 reuse layer 1's sliding KV and layer 5 reuses layer 2's
global KV), sparse-gate layers 10 -> 2, 8 heads (2 kv) of head_dim 256 -> 4 (2) of 16, intermediate 16384 -> 256,
sliding window 512 -> 16 (48 tokens), vocab 262400 -> 1000 with a per-layer-input vocab 262144 -> 960,
hidden_size_per_layer_input 256 -> 16, laurel_rank 64 -> 8.
Kept: altup_num_inputs 4 with active index 0 and correct scale, activation sparsity 0.95, final softcap 30, GELU
(tanh), rms_norm_eps 1e-6, embedding scale sqrt(hidden). AltUp's correct_output_scale (zeros in the class, trained
in the checkpoint; zeros would cancel the per-layer-input branch) gets fixed values in [0.5, 1.5].
Inputs: input_ids (2, 48) (some ids above the per-layer vocabulary), attention_mask with the second sample
left-padded by 5 tokens. Output: LM logits (2, 48, 1000).
"""
import torch
from torch import nn
from transformers import Gemma3nForCausalLM, Gemma3nTextConfig

batch_size = 2
seq_len = 48
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        config._attn_implementation = "sdpa"
        self.model = Gemma3nForCausalLM(config)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for layer in self.model.model.layers:
                scale = layer.altup.correct_output_scale
                scale.copy_(0.5 + torch.rand(scale.shape, generator=gen))

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, :5] = pad_token_id
    attention_mask[1, :5] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    return [Gemma3nTextConfig(
        vocab_size=vocab_size,  # published 262400
        vocab_size_per_layer_input=960,  # published 262144
        hidden_size=64,  # published 2048
        hidden_size_per_layer_input=16,  # published 256
        intermediate_size=256,  # published 16384
        num_hidden_layers=6,  # published 35
        layer_types=["sliding_attention", "sliding_attention", "full_attention",
                     "sliding_attention", "sliding_attention", "full_attention"],
        num_kv_shared_layers=3,  # published 15
        activation_sparsity_pattern=[0.95, 0.95, 0.0, 0.0, 0.0, 0.0],  # published: the first 10 layers at 0.95
        num_attention_heads=4,  # published 8
        num_key_value_heads=2,
        head_dim=16,  # published 256
        sliding_window=16,  # published 512
        laurel_rank=8,  # published 64
        altup_num_inputs=4,
        altup_active_idx=0,
        altup_correct_scale=True,
        final_logit_softcapping=30.0,
        pad_token_id=pad_token_id,
    )]
