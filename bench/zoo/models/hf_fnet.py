"""FNet (Lee-Thorp et al. 2021, "FNet: Mixing Tokens with Fourier Transforms"): a BERT-style encoder whose
self-attention sublayer is replaced by a parameter-free 2-D discrete Fourier transform, after `google/fnet-base`,
shrunk.

FNetModel with its pooler. Embeddings: word + absolute position + token type, LayerNorm, then a linear projection
(hidden -> hidden). Each layer: x <- LayerNorm(x + Re(FFT_seq(FFT_hidden(x)))) (torch.fft.fftn over the sequence and
hidden dims, keeping the real part: no learned weights, no attention mask: every token, padding included, mixes with
every other), then x <- LayerNorm(x + W2 gelu_new(W1 x)) (post-LN). Pooler: dense + tanh on the first token.
Shrunk: hidden 768 -> 128, 12 layers -> 2, intermediate 3072 -> 512, vocab 32000 -> 1000. Kept: gelu_new,
max_position_embeddings 512, 4 token types, layer_norm_eps 1e-12, the FFT path (use_tpu_fourier_optimizations
False), pad id 3.
Inputs, as FNetTokenizer returns them (input_ids and token_type_ids, no attention mask): input_ids (2, 64) with the
second sentence right-padded by 8 pad tokens (id 3), token_type_ids (2, 64) all 0 (single segment).
Output: (last_hidden_state (2, 64, 128), pooler_output (2, 128)).
"""
import torch
from torch import nn
from transformers import FNetConfig, FNetModel

batch_size = 2
seq_len = 64
vocab_size = 1000
pad_token_id = 3


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = FNetModel(config)

    def forward(self, input_ids, token_type_ids):
        out = self.model(input_ids=input_ids, token_type_ids=token_type_ids)
        return out.last_hidden_state, out.pooler_output


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, seq_len))
    input_ids[1, -8:] = pad_token_id  # pad
    token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    return [input_ids, token_type_ids]


def get_init_inputs():
    # google/fnet-base config.json. Kept: gelu_new, hidden_dropout_prob 0.1, max_position_embeddings 512,
    # type_vocab_size 4, initializer_range 0.02, layer_norm_eps 1e-12, use_tpu_fourier_optimizations False,
    # tpu_short_seq_length 512, pad 3 / bos 1 / eos 2 (all FNetConfig defaults).
    return [FNetConfig(
        vocab_size=vocab_size,  # published 32000
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 12
        intermediate_size=512,  # published 3072
    )]
