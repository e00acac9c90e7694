"""ProphetNet (Qi et al. 2020, "ProphetNet: Predicting Future N-gram for Sequence-to-Sequence Pre-training"): an
encoder-decoder transformer whose decoder runs n-stream self-attention. Besides the main stream (ordinary causal
self-attention over the decoder input tokens) it carries `ngram` predicting streams whose inputs are learned
n-gram embeddings plus position embeddings (no token content); predicting stream k at position t attends to a
causal prefix of the main stream (ending k positions earlier) and to itself only at position t, so the streams
predict the next tokens t+1 .. t+ngram in parallel. Main and predicting self-attention both add T5-style bucketed
relative-position biases (num_buckets buckets up to relative_max_distance), computed separately for the main and
the predicting streams. The encoder is a post-LN BERT-style transformer with learned absolute positions; decoder
layers have self (n-stream), cross and FFN sub-blocks; the word embeddings are shared by encoder and decoder.
After `microsoft/prophetnet-large-uncased`, shrunk.

ProphetNetModel (encoder + n-stream decoder, no LM head).
Shrunk: hidden 1024 -> 128, 12 encoder + 12 decoder layers -> 2 + 2, 16 heads -> 4 (encoder and decoder),
encoder/decoder FFN 4096 -> 512, vocab 30522 -> 1000; ngram 2, num_buckets 32, relative_max_distance 128 and
max_position_embeddings 512 as published.
Inputs: input_ids (2, 32) (source text then [SEP], pad 0) with attention_mask whose second sample is
right-padded, decoder_input_ids (2, 16) starting with the decoder start token [SEP] (id 102).
Output: (last_hidden_state (2, 16, 128) of the main stream, last_hidden_state_ngram (2, 2 * 16, 128) of the two
predicting streams).
"""
import torch
from torch import nn
from transformers import ProphetNetConfig, ProphetNetModel

batch_size = 2
src_len = 32
tgt_len = 16
vocab_size = 1000
sep_id = 102


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = ProphetNetModel(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids)
        return out.last_hidden_state, out.last_hidden_state_ngram


def get_inputs():
    input_ids = torch.randint(110, vocab_size, (batch_size, src_len))
    attention_mask = torch.ones(batch_size, src_len, dtype=torch.long)
    input_ids[0, -1] = sep_id
    input_ids[1, -6] = sep_id
    input_ids[1, -5:] = 0  # [PAD]
    attention_mask[1, -5:] = 0
    decoder_input_ids = torch.randint(110, vocab_size, (batch_size, tgt_len))
    decoder_input_ids[:, 0] = sep_id  # decoder_start_token_id
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # microsoft/prophetnet-large-uncased config.json. Kept: gelu, ngram 2, num_buckets 32, relative_max_distance
    # 128, max_position_embeddings 512, eps 0.0 (no label smoothing), init_std 0.02, pad 0, bos / eos /
    # decoder_start 102, dropout / attention_dropout / activation_dropout 0.1 (inactive in eval), tied embeddings.
    return [ProphetNetConfig(
        vocab_size=vocab_size,  # published 30522
        hidden_size=128,  # published 1024
        encoder_ffn_dim=512,  # published 4096
        num_encoder_layers=2,  # published 12
        num_encoder_attention_heads=4,  # published 16
        decoder_ffn_dim=512,  # published 4096
        num_decoder_layers=2,  # published 12
        num_decoder_attention_heads=4,  # published 16
        activation_function="gelu",
        dropout=0.1,
        attention_dropout=0.1,
        activation_dropout=0.1,
        max_position_embeddings=512,
        init_std=0.02,
        ngram=2,
        num_buckets=32,
        relative_max_distance=128,
        disable_ngram_loss=False,
        eps=0.0,
        pad_token_id=0,
        bos_token_id=sep_id,
        eos_token_id=sep_id,
        decoder_start_token_id=sep_id,
        is_encoder_decoder=True,
        add_cross_attention=True,
    )]
