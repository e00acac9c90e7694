"""Nystromformer (Xiong et al. 2021, "Nystromformer: A Nystrom-Based Algorithm for Approximating Self-Attention"):
a BERT-style post-LN encoder whose softmax attention is replaced by its Nystrom approximation, after
`uw-madison/nystromformer-512`, shrunk.

NystromformerModel (no pooler). Per head, with Q and K each scaled by d^-1/4: m landmarks are the segment means of
Q and of K over m equal consecutive segments of the sequence (Q~, K~); then
    attention ~= softmax(Q K~^T) pinv(softmax(Q~ K~^T)) softmax(Q~ K^T + mask) V,
where pinv is the Moore-Penrose pseudo-inverse approximated by 6 iterations of the Razavi et al. cubic scheme
(Z <- Z/4 (13 I - A Z (15 I - A Z (7 I - A Z))), from Z0 = A^T / max column sum), so the cost is linear in the
sequence length. A depthwise convolution of V along the sequence (kernel 65, one filter per head, no bias) is added
to the attention output as a skip. Embeddings: word + RoBERTa-style positions (offset 2) + token type, LayerNorm;
gelu_new FFN.
The HF port takes the Nystrom path only when config.segment_means_seq_len (the fixed sequence length whose segment
means give the landmarks) differs from num_landmarks; the published config.json sets both to 64, which makes the
port fall back to exact softmax attention. Here, as in the paper's 512-token pretraining (512 tokens, 64 landmarks),
segment_means_seq_len is set to the input sequence length, so the landmark attention runs.
Shrunk: hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4 (head_dim 64 -> 16), intermediate 3072 -> 256,
vocab 30000 -> 1000, sequence 512 -> 128 (segment_means_seq_len, published 64: see above), num_landmarks 64 -> 16
(8 tokens per landmark, as 512 / 64). Kept: conv_kernel_size 65, max_position_embeddings 510, gelu_new,
layer_norm_eps 1e-5, 2 token types, inv_coeff_init_option False, pad id 1.
Inputs: input_ids (2, 128) and attention_mask (2, 128), both samples full-length sequences (no padding), as in
the MLM pretraining, which packs text into full 512-token sequences. The Nystrom path needs every input at exactly
segment_means_seq_len tokens, so shorter texts would be padded to it; but in transformers 5.24 a mask with padding
crashes that path (create_bidirectional_mask builds a (batch, 1, T, T) mask, which cannot be added to the
(batch, heads, landmarks, T) scores of softmax(Q~ K^T + mask)), so no sample is padded here. The all-ones mask is
dropped by the mask builder (no bias).
Output: last_hidden_state (2, 128, 64).
"""
import torch
from torch import nn
from transformers import NystromformerConfig, NystromformerModel

batch_size = 2
seq_len = 128
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = NystromformerModel(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def get_inputs():
    input_ids = torch.randint(5, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)  # full-length (packed) sequences
    return [input_ids, attention_mask]


def get_init_inputs():
    # uw-madison/nystromformer-512 config.json (= NystromformerConfig defaults). Kept: gelu_new, dropout 0.1 / 0.1,
    # max_position_embeddings 510, type_vocab_size 2, conv_kernel_size 65, inv_coeff_init_option False,
    # initializer_range 0.02, layer_norm_eps 1e-5, pad 1 / bos 0 / eos 2.
    return [NystromformerConfig(
        vocab_size=vocab_size,  # published 30000
        hidden_size=64,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        segment_means_seq_len=seq_len,  # published 64 (= num_landmarks: exact attention in the HF port)
        num_landmarks=16,  # published 64
    )]
