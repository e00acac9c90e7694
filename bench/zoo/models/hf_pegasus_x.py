"""PEGASUS-X (Phang et al. 2022, "Investigating Efficiently Extending Transformers for Long Input Summarization"):
a pre-LayerNorm encoder-decoder for long-input summarization whose encoder replaces full self-attention by
block-local attention with global tokens, after `google/pegasus-x-base`, shrunk.

Encoder: scaled token embeddings + sinusoidal positions (computed on the fly: no length limit); the sequence is
right-padded to a multiple of block_size and cut into blocks; a bank of learned global token embeddings
(num_global_tokens of them) runs alongside. In each layer, one shared set of Q / K / V / O projections serves both
streams: every local token attends to the tokens of its own block plus all global tokens, and every global token
attends to all global tokens plus the whole (masked) sequence; the two streams have separate pre-attention
LayerNorms but share the FFN (ReLU) and its LayerNorm. Every other layer (stagger_local_blocks) shifts the block
boundaries by half a block (padding block_size / 2 on both sides), so information crosses block borders. After the
last layer the global tokens are dropped and the decoder cross-attends to the local tokens only.
Decoder: a standard pre-LN causal decoder (causal self-attention, cross-attention, ReLU FFN) with the same
sinusoidal positions; LM head tied to the shared embeddings.

PegasusXForConditionalGeneration, one teacher-forced step as in training / scoring: the document goes through the
encoder, and the decoder reads the shifted summary (decoder_input_ids starting with decoder_start_token_id = pad = 0).
Shrunk: d_model 768 -> 128, 12 + 12 layers -> 2 + 2 (the second encoder layer is the staggered one), 12 heads -> 4
(head_dim 64 -> 32), ffn 3072 -> 512, vocab 96103 -> 1000, num_global_tokens 128 -> 8, block_size 512 -> 16.
Inputs: input_ids (2, 60) (padded inside the encoder to 64 = 4 blocks of 16), attention_mask with the second
document right-padded by 8 tokens (pad id 0; </s> = 1 ends each document), decoder_input_ids (2, 16).
Output: LM logits (2, 16, 1000).
"""
import torch
from torch import nn
from transformers import PegasusXConfig, PegasusXForConditionalGeneration

batch_size = 2
src_len = 60
tgt_len = 16
vocab_size = 1000
pad_token_id = 0  # also the decoder start token
eos_token_id = 1


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PegasusXForConditionalGeneration(config)

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
    # google/pegasus-x-base config.json. Kept: relu, attention / activation dropout 0.1; and, as PegasusXConfig
    # defaults: scale_embedding, sinusoidal positions, max_position_embeddings 16384, stagger_local_blocks,
    # dropout 0.1, init_std 0.02, tied embeddings, pad = decoder start = 0, eos = forced eos = 1.
    return [PegasusXConfig(
        vocab_size=vocab_size,  # published 96103
        d_model=128,  # published 768
        encoder_layers=2,  # published 12
        decoder_layers=2,  # published 12
        encoder_attention_heads=4,  # published 12
        decoder_attention_heads=4,  # published 12
        encoder_ffn_dim=512,  # published 3072
        decoder_ffn_dim=512,  # published 3072
        activation_function="relu",
        attention_dropout=0.1,
        activation_dropout=0.1,
        num_global_tokens=8,  # published 128
        block_size=16,  # published 512
    )]
