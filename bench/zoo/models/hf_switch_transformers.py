"""Switch Transformer (Fedus et al. 2021, "Switch Transformers: Scaling to Trillion Parameter Models with Simple and
Efficient Sparsity"): a T5-style encoder-decoder (pre-RMSNorm without bias, relative position buckets in the first
layer's self-attention shared by all layers, ReLU FFN, no biases anywhere, tied LM head scaled by d_model^-0.5) whose
FFN is replaced by a top-1 mixture of experts in every other layer, after `google/switch-base-8`, shrunk.

Sparse layers (the 2nd, 4th, ... of encoder and decoder: sparse step 2): a router (linear, float32 softmax) picks
one of 8 ReLU-FFN experts per token; tokens are admitted to their expert in sequence order until it holds
expert_capacity tokens of that sequence (later ones skip the FFN: only the residual passes), and each expert's
output is scaled by the router probability of the chosen expert.

SwitchTransformersForConditionalGeneration, one teacher-forced step as in training / scoring: the span-corrupted
input goes through the encoder, and the decoder reads the shifted target (decoder_input_ids starting with
decoder_start_token_id = pad = 0).
Shrunk: d_model 768 -> 128, 12 + 12 layers -> 4 + 4 (2 + 2 sparse: published 6 + 6, every other layer kept),
12 heads -> 4, d_kv 64 -> 32, d_ff 3072 -> 512 (per expert), vocab 32128 -> 1000, expert_capacity 64 -> 8 (the
published capacity is 1.0 x tokens / experts for 512-token inputs: 512 / 8; here 64 / 8). 8 experts kept.
Inputs: input_ids (2, 64), attention_mask with the second input right-padded by 8 tokens (pad id 0; </s> = 1 ends
each input), decoder_input_ids (2, 16).
Output: LM logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import SwitchTransformersConfig, SwitchTransformersForConditionalGeneration

batch_size = 2
src_len = 64
tgt_len = 16
vocab_size = 1000
pad_token_id = 0  # also the decoder start token
eos_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SwitchTransformersForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          decoder_input_ids=decoder_input_ids).logits


def get_inputs():
    input_ids = torch.randint(2, vocab_size, (batch_size, src_len))
    input_ids[0, -1] = eos_token_id
    input_ids[1, -9] = eos_token_id
    input_ids[1, -8:] = pad_token_id
    attention_mask = torch.ones(batch_size, src_len, dtype=torch.long)
    attention_mask[1, -8:] = 0
    decoder_input_ids = torch.randint(2, vocab_size, (batch_size, tgt_len))
    decoder_input_ids[:, 0] = pad_token_id  # decoder_start_token_id
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # google/switch-base-8 config.json (decoder_start_token_id 0 as published). Kept (SwitchTransformersConfig
    # defaults): 8 experts, top-1 routing, router without bias in float32, router_jitter_noise 0.01 (training
    # only), router_ignore_padding_tokens False, relu, 32 relative attention buckets, max distance 128,
    # dropout 0.1, layer_norm_epsilon 1e-6, initializer_factor 1.0, tied embeddings, pad 0, eos 1.
    return [SwitchTransformersConfig(
        vocab_size=vocab_size,  # published 32128
        d_model=128,  # published 768
        d_kv=32,  # published 64
        d_ff=512,  # published 3072
        expert_capacity=8,  # published 64
        num_layers=4,  # published 12
        num_sparse_encoder_layers=2,  # published 6
        num_decoder_layers=4,  # published 12
        num_sparse_decoder_layers=2,  # published 6
        num_heads=4,  # published 12
        decoder_start_token_id=pad_token_id,
    )]
