"""HRM-Text decoder LM (Sapient: the Hierarchical Reasoning Model applied to language modelling: two transformer
stacks, each reused at every cycle: a fast low-level "L" module and a slow high-level "H" module run as a nested
recurrence over the whole sequence instead of a deep stack: z_L starts at a fixed zero state (z_L_init), and for
each of H_cycles = 2 high cycles the L stack is applied L_cycles = 3 times to z_L + z_H, then the H stack once to
z_H + z_L; z_H starts as the token embeddings scaled by 1 / initializer_range (= 50). Each stack is a pre-norm
Llama-style block list with weightless RMSNorms, a final weightless RMSNorm, full MHA with RoPE and a
Qwen3-Next-style sigmoid output gate (sigmoid(W_g x) * attn), SwiGLU MLPs; prefix-LM attention: instruction tokens
(token_type_ids == 1) attend to each other bidirectionally, the response tokens causally), after
`sapientinc/HRM-Text-1B`, shrunk.

HrmTextForCausalLM (sdpa; use_cache left at its default, so every one of the 2 * (3 + 1) stack invocations writes
its own KV-cache slots, as in a prefill). One forward = 2 x (3 L-stack + 1 H-stack) = 8 stack applications of 2
layers each (16 attention + 16 MLP layer applications from 4 layers of weights), then the LM head. Shrunk: hidden
1536 -> 128, 16 layers per stack -> 2, 12 heads -> 4, head_dim 128 -> 32, intermediate 4096 -> 384, vocab 151808 ->
1000. Kept: H_cycles 2, L_cycles 3, embedding scale 1 / 0.02, prefix LM, untied head. Inputs: input_ids (2, 64): an
instruction prefix of 24 / 16 tokens (token_type_ids 1) then the response (token_type_ids 0); the second sample
right-padded by 8 tokens (attention_mask 0, pad 0). Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import HrmTextConfig, HrmTextForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
prefix_lens = [24, 16]
num_pad = [0, 8]
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = HrmTextForCausalLM(config)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits


def get_inputs():
    input_ids = torch.randint(1, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i in range(batch_size):
        n_prefix, n_pad = prefix_lens[i % len(prefix_lens)], num_pad[i % len(num_pad)]
        token_type_ids[i, :n_prefix] = 1
        if n_pad:
            input_ids[i, -n_pad:] = pad_token_id
            attention_mask[i, -n_pad:] = 0
    return [input_ids, attention_mask, token_type_ids]


def get_init_inputs():
    # sapientinc/HRM-Text-1B (the HrmTextConfig defaults). Kept: H_cycles 2, L_cycles 3, L_bp_cycles [2] (a
    # training-only gradient window), silu, rms_norm_eps 1e-6, RoPE theta 1e4, no biases, prefix_lm, untied LM head,
    # initializer_range 0.02 (so embedding_scale 50).
    return [HrmTextConfig(
        vocab_size=vocab_size,  # published 151808
        hidden_size=128,  # published 1536
        intermediate_size=384,  # published 4096
        num_hidden_layers=2,  # per stack; published 16
        num_attention_heads=4,  # published 12
        head_dim=32,  # published 128
        pad_token_id=pad_token_id,
    )]
