"""Byte Latent Transformer (Meta FAIR, BLT: a tokenizer-free LM over raw bytes that groups bytes into
variable-length patches by the next-byte entropy of a small byte LM and runs its large transformer over patches).
One forward: (1) the entropy patcher, a small causal byte transformer (sliding window 512), predicts the next-byte
distribution; its entropy thresholded at 1.335 marks patch starts (bytes 0 and 1 always start one), giving
per-sample patch lengths; (2) the local encoder embeds each byte as its byte embedding plus 6 hash-n-gram
embeddings (rolling polynomial hashes of the 3..8 preceding bytes into a hash table), runs a causal byte layer,
max-pools (scatter_reduce amax) the bytes of each patch, projects each patch to cross_attn_k = 2 query slots, and
refines them by cross-attention to their own bytes (patch-block mask); (3) the global transformer runs causally
over the patch sequence; (4) the local decoder lets every byte cross-attend to the global states of the patches
before it (each decoder layer: cross-attention, then a causal byte layer), then the byte LM head; after
`itazap/blt-1b-hf` (the 1B BLT release), shrunk.

BltForCausalLM (sdpa). use_cache=False: with the library's default (True) BltModel builds an EncoderDecoderCache
from the composite BltConfig, which has no num_hidden_layers, and the plain forward raises. The patcher's LM head
is redrawn with std 0.8 in Model.__init__, a stand-in for a trained entropy model: at the library's init (std 0.02)
every next-byte entropy is ~log(260) > the threshold and every byte would become its own patch; with it, 25-40 of
the 96 bytes start a patch (mean patch 2.5-4 bytes; published ~4.5), so the patch count is data dependent, as in
the real model.
Shrunk: encoder / decoder hidden 1024 -> 64, global hidden 2048 -> 128 (= encoder hidden x cross_attn_k, as
published, so no token projection), 1 encoder layer kept, decoder 9 layers -> 2, global 25 layers -> 2, heads
16 -> 4, patcher hidden 768 -> 64, 14 layers -> 2, 12 heads -> 4; hash table 500002 -> 2003 rows per n-gram size.
Kept: 260-byte vocab (256 bytes + 4 specials, offset 4), n-gram sizes 3..8 with one hash function, cross_attn_k 2,
cross-attention in every decoder layer and in the last encoder layer, local sliding window 512, threshold 1.335.
Inputs: input_ids (2, 96): BOS (1) then UTF-8 bytes + 4 of two English sentences. Output: byte logits (2, 96, 260).
"""
import torch
from torch import nn
from transformers import BltConfig, BltForCausalLM

batch_size = 2
seq_len = 96
bos_token_id = 1
byte_offset = 4
texts = [
    "The Byte Latent Transformer reads raw bytes and spends its compute where the next byte is hard to guess, "
    "so predictable runs of text fall into long patches.",
    "Patches are formed dynamically: a small byte-level model measures entropy, and a new patch begins whenever "
    "that entropy rises above a global threshold.",
]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BltForCausalLM(config)
        # A trained entropy model is confident on most bytes; sharpen the random patcher head accordingly.
        nn.init.normal_(self.model.model.patcher.lm_head.weight, std=0.8)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    rows = []
    for i in range(batch_size):
        data = texts[i % len(texts)].encode("utf-8")[: seq_len - 1]
        rows.append([bos_token_id] + [b + byte_offset for b in data])
    return [torch.tensor(rows, dtype=torch.long)]


def get_init_inputs():
    # itazap/blt-1b-hf config.json. Kept: vocab 260, patch_size 4, patching_mode entropy, patching_threshold
    # 1.335442066192627, local_attention_window_len 512, cross_attn_k 2, encoder_hash_byte_group_size [3..8],
    # 1 hash function, RoPE theta 5e5, rms_norm_eps 1e-5, silu, encoder cross-attention on its last layer only,
    # decoder cross-attention on all layers, patcher sliding window 512.
    return [BltConfig(
        vocab_size=260,
        patch_size=4,
        patching_mode="entropy",
        patching_threshold=1.335442066192627,
        local_attention_window_len=512,
        cross_attn_k=2,
        encoder_hash_byte_group_size=[3, 4, 5, 6, 7, 8],
        encoder_hash_byte_group_vocab=2003,  # published 500002
        encoder_hash_byte_group_nb_functions=1,
        patcher_config=dict(
            hidden_size=64,  # published 768
            num_hidden_layers=2,  # published 14
            num_attention_heads=4,  # published 12
            intermediate_size=192,  # published 2048
            sliding_window=512,
        ),
        encoder_config=dict(
            hidden_size=64,  # published 1024
            num_hidden_layers=1,
            num_attention_heads=4,  # published 16
            hidden_size_global=128,  # published 2048
            cross_attn_k=2,
            cross_attn_all_layers=False,
        ),
        decoder_config=dict(
            hidden_size=64,  # published 1024
            num_hidden_layers=2,  # published 9
            num_attention_heads=4,  # published 16
            hidden_size_global=128,  # published 2048
            intermediate_size=176,  # published 2816
            cross_attn_k=2,
            cross_attn_all_layers=True,
        ),
        global_config=dict(
            hidden_size=128,  # published 2048
            num_hidden_layers=2,  # published 25
            num_attention_heads=4,  # published 16
            intermediate_size=352,  # published 5632
        ),
    )]
