"""xLSTM LM made of mLSTM blocks only (pre-RMSNorm residual blocks: an mLSTM layer, then a SwiGLU-style gated
feed-forward; the mLSTM layer projects q, k (half width) and v, per-head scalar input / forget gate preactivations
soft-capped at 15 by tanh, a sigmoid output gate; the matrix-memory recurrence C_t = f_t C_{t-1} + i_t v_t k_t^T
with exponential input gate and log-sigmoid forget gate, stabilised by a running max state, computed chunkwise:
inter-chunk states by a recurrence over chunks, intra-chunk outputs by a gated causal q k^T matrix; per-head
LayerNorm of the output; final RMSNorm; LM head with logits soft-capped at 30 by tanh), after `NX-AI/xLSTM-7b`,
shrunk.

xLSTMForCausalLM in "inference" mode (the published mode) with the native torch kernels
(chunkwise--native_autograd, native_sequence__native, native) in place of the checkpoint's Triton ones
(chunkwise--triton_xl_chunk, native_sequence__triton, triton), which need the `xlstm` / `mlstm_kernels` packages
and a GPU; without the `xlstm` package (absent here) transformers runs its own native copy whatever the names.
chunk_size 64 -> 16 so the 64-token input spans 4 chunks and the inter-chunk recurrence runs (with 64 it would be
one chunk).
Shrunk: embedding 4096 -> 128, 32 blocks -> 2, 8 heads -> 4, qk head dim 256 -> 16, v head dim 512 -> 32
(qk_dim_factor 0.5 and v_dim_factor 1.0 kept), FFN 10944 -> 384 (ffn_proj_factor 2.667 rounded up to a
multiple of 64, kept), vocab 50304 -> 1000.
Inputs: input_ids (2, 64), starting with BOS (id 0; the checkpoint's tokenizer forces a BOS). The model takes no
attention mask (a recurrent LM; padding is not masked), so both samples are full-length. Output: LM logits
(2, 64, 1000). The library's (and the original xLSTM's) init zeroes the input / forget gate weights (biases -10 and
linspace(3, 6)), so on a freshly built model the gates are constant per head; q, k, v still vary per token.
"""
import torch
from torch import nn
from transformers import xLSTMConfig, xLSTMForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
bos_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = xLSTMForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = bos_token_id
    return [input_ids]


def get_init_inputs():
    # NX-AI/xLSTM-7b config.json. Kept: weight_mode "single" (separate q / k / v / gate projections), no bias,
    # norm_eps 1e-6, eps 1e-6, add_out_norm, norm_reduction_force_float32, qk_dim_factor 0.5, v_dim_factor 1.0,
    # ffn_proj_factor 2.667 rounded to 64, gate_soft_cap 15, output_logit_soft_cap 30, mode "inference",
    # return_last_states, inference_state_dtype float32, autocast_kernel_dtype bfloat16 (unused by the native
    # kernels), max_inference_chunksize 16384, untied head, bos 0 / pad 1 / eos 2.
    return [xLSTMConfig(
        vocab_size=vocab_size,  # published 50304
        hidden_size=128,  # published embedding_dim 4096
        num_hidden_layers=2,  # published num_blocks 32
        num_heads=4,  # published 8
        use_bias=False,
        norm_reduction_force_float32=True,
        tie_word_embeddings=False,
        add_out_norm=True,
        norm_eps=1e-6,
        qk_dim_factor=0.5,
        v_dim_factor=1.0,
        chunkwise_kernel="chunkwise--native_autograd",  # published chunkwise--triton_xl_chunk
        sequence_kernel="native_sequence__native",  # published native_sequence__triton
        step_kernel="native",  # published triton
        mode="inference",
        chunk_size=16,  # published 64
        return_last_states=True,
        autocast_kernel_dtype="bfloat16",
        eps=1e-6,
        inference_state_dtype="float32",
        ffn_proj_factor=2.667,
        ffn_round_up_to_multiple_of=64,
        gate_soft_cap=15.0,
        output_logit_soft_cap=30.0,
        weight_mode="single",
        max_inference_chunksize=16384,
        pad_token_id=1,
        bos_token_id=bos_token_id,
        eos_token_id=2,
    )]
