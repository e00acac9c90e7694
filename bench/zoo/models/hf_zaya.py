"""ZAYA1 MoE decoder LM (Zyphra: Compressed Convolutional Attention (CCA): the query and key projections are
concatenated and mixed along time by two stacked causal Conv1d's, a depthwise one (kernel 2) and a grouped one
(kernel 2, one group per query / key head), plus residual paths (each query head averaged with its GQA key head,
each key head the mean of those averages over its group); the value heads are half current-token projection, half
the previous token's ("delayed") projection; queries and keys are L2-normalised to norm sqrt(head_dim) with a
learned per-kv-head key temperature; partial RoPE on half of each head (theta 5e6); GQA 4:1. Residual streams
through learned per-channel scale-and-bias mixes (ZayaResidualScaling) kept in fp32. Every layer a top-1 MoE whose
router is an MLP (down-projection to 256, RMSNorm, two GELU layers) over the experts plus a "skip" expert that
computes nothing (a balancing bias of -1 on it), and whose router state is carried from each layer into the next
(EDA); tied LM head), after `Zyphra/ZAYA1-8B`, shrunk.

ZayaForCausalLM (sdpa attention; use_cache left at its default, so the CCA conv state and the delayed value
state go to the hybrid cache as in a prefill).
The key temperatures are initialised at 0 by the library (every key zero: uniform attention); they are drawn in
(0.5, 1.5) in Model.__init__, as a stand-in for trained values.
Shrunk: hidden 2048 -> 128, 40 layers -> 2 (layer 0 without and layer 1 with the carried router state),
8 heads / 2 kv heads kept, head_dim 128 -> 16, 16 experts -> 4 (+ the skip expert; top-1 kept),
moe_intermediate 2048 -> 128, router_hidden 256 -> 32, vocab 262272 -> 1000.
Inputs: input_ids (2, 64), attention_mask with the second sample right-padded by 6 tokens (pad 0), so the CCA
projection zeroes the padded tokens before its convolutions. Output: LM logits (2, 64, 1000).
"""
import torch
from torch import nn
from transformers import ZayaConfig, ZayaForCausalLM

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ZayaForCausalLM(config)
        # ZayaQKNorm.temp starts at 0 (keys multiplied by 0); give it trained-like values.
        for name, param in self.model.named_parameters():
            if name.endswith("qk_norm.temp"):
                nn.init.uniform_(param, 0.5, 1.5)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 2  # <bos>
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[1, -6:] = pad_token_id
    attention_mask[1, -6:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # Zyphra/ZAYA1-8B (the ZayaConfig defaults). Kept: 8 heads / 2 kv heads, cca_time0 = cca_time1 = 2, silu
    # experts, top-1 routing, rms_norm_eps 1e-5, every layer "hybrid" (full causal attention), RoPE theta 5e6 on
    # half of each head, max_position_embeddings 131072, tied LM head without bias, pad 0 / bos 2 / eos 106.
    return [ZayaConfig(
        vocab_size=vocab_size,  # published 262272
        hidden_size=128,  # published 2048
        num_hidden_layers=2,  # published 40
        head_dim=16,  # published 128
        moe_intermediate_size=128,  # published 2048
        num_experts=4,  # published 16
        router_hidden_size=32,  # published 256
    )]
