"""T5Gemma encoder-decoder LM (an encoder and a decoder each built from Gemma-2 blocks: embeddings scaled by
sqrt(hidden); layers alternating sliding-window (local) and full (global) attention, GQA with RoPE,
query_pre_attn_scalar scaling, tanh soft-capping of the attention logits at 50; Gemma-2 "sandwich" RMSNorms (x * (1
+ w)) before and after every sub-layer; GeGLU MLP with tanh-approximated GELU. The encoder attends bidirectionally
(its sliding layers use a bidirectional window, padded keys masked); each decoder layer runs causal self-attention
(sliding or full), then cross-attention to the encoder output (full, with the encoder padding mask, no RoPE), then
the MLP; the LM head is tied to the embeddings and its logits are tanh soft-capped at 30), after
`google/t5gemma-2b-2b-ul2`, shrunk.

T5GemmaForConditionalGeneration.
Shrunk (encoder and decoder alike, as published): hidden 2304 -> 128, 26 layers -> 2 (one sliding, one full),
8 heads -> 4, 4 kv heads -> 2, head_dim 256 -> 32, query_pre_attn_scalar 256 -> 32 (= head_dim, as published),
intermediate 9216 -> 512 (the published 4x kept), sliding_window 4096 -> 16 (so the window is narrower than the
inputs and the sliding layers differ from the full ones), vocab 256000 -> 1000.
Inputs: input_ids (2, 64) starting with <bos> = 2 and attention_mask with the second sample right-padded by 4
tokens (pad 0); decoder_input_ids (2, 32) starting with the decoder start token (<bos> = 2), as the model's
_shift_right builds them from the targets. Output: LM logits (2, 32, 1000).
"""
import torch
from torch import nn
from transformers import T5GemmaConfig, T5GemmaForConditionalGeneration, T5GemmaModuleConfig

batch_size = 2
enc_seq_len = 64
dec_seq_len = 32
vocab_size = 1000
pad_token_id = 0
eos_token_id = 1
bos_token_id = 2


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = T5GemmaForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids
        ).logits


def get_inputs():
    input_ids = torch.randint(3, vocab_size, (batch_size, enc_seq_len))
    input_ids[:, 0] = bos_token_id
    attention_mask = torch.ones(batch_size, enc_seq_len, dtype=torch.long)
    input_ids[1, -4:] = pad_token_id  # pad
    attention_mask[1, -4:] = 0
    decoder_input_ids = torch.randint(3, vocab_size, (batch_size, dec_seq_len))
    decoder_input_ids[:, 0] = bos_token_id  # decoder_start_token_id
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # google/t5gemma-2b-2b-ul2 config.json (encoder and decoder: Gemma-2-2B modules). Kept: gelu_pytorch_tanh,
    # rms_norm_eps 1e-6, rope_theta 1e4, attn_logit_softcapping 50, final_logit_softcapping 30, alternating
    # sliding / full layers (sliding first), no attention bias, max_position_embeddings 8192, dropout 0,
    # tied embeddings, pad 0 / eos 1 / bos 2.
    module = dict(
        vocab_size=vocab_size,  # published 256000
        hidden_size=128,  # published 2304
        intermediate_size=512,  # published 9216
        num_hidden_layers=2,  # published 26
        num_attention_heads=4,  # published 8
        num_key_value_heads=2,  # published 4
        head_dim=32,  # published 256
        query_pre_attn_scalar=32,  # published 256
        sliding_window=16,  # published 4096
        hidden_activation="gelu_pytorch_tanh",
        rms_norm_eps=1e-6,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        attn_logit_softcapping=50.0,
        final_logit_softcapping=30.0,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
        bos_token_id=bos_token_id,
    )
    return [T5GemmaConfig(
        encoder=T5GemmaModuleConfig(**module),
        decoder=T5GemmaModuleConfig(**module),
        vocab_size=vocab_size,  # published 256000
        dropout_rate=0.0,
        attention_dropout=0.0,
        tie_word_embeddings=True,
    )]
