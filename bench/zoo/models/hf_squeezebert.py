"""SqueezeBERT (Iandola et al. 2020, "SqueezeBERT: What can computer vision teach NLP about efficient neural
networks?"): a BERT encoder whose position-wise fully-connected layers are replaced by 1x1 Conv1d layers over a
channels-first (batch, hidden, seq) layout, most of them GROUPED convolutions: the Q, K and V projections use 4
groups each, the post-attention projection is a dense (1-group) 1x1 conv, and the FFN's intermediate and output
1x1 convs use 4 groups each; each sub-block ends in a channel-wise LayerNorm (transposed in and out of the
channels-first layout) after the residual add. Word + learned absolute position + token-type embeddings as in
BERT; a tanh pooler on the first token. After `squeezebert/squeezebert-uncased`, shrunk.

SqueezeBertModel (encoder + pooler).
Shrunk: hidden_size / embedding_size 768 -> 128, 12 layers -> 2, 12 heads -> 4 (head dim 64 -> 32),
intermediate_size 3072 -> 512, vocab 30528 -> 1000, max_position_embeddings 512 -> 128; all group counts
(q/k/v 4, post-attention 1, intermediate 4, output 4) as published.
Inputs: input_ids (2, 32) as the BERT tokenizer writes a sentence pair ([CLS] A [SEP] B [SEP] [PAD]...),
attention_mask with the second sample right-padded, token_type_ids (0 for segment A, 1 for segment B).
Output: last_hidden_state (2, 32, 128).
"""
import torch
from torch import nn
from transformers import SqueezeBertConfig, SqueezeBertModel

batch_size = 2
seq_len = 32
vocab_size = 1000
cls_id, sep_id = 101, 102


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = SqueezeBertModel(config)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state


def get_inputs():
    input_ids = torch.randint(110, vocab_size, (batch_size, seq_len))
    token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, 0] = cls_id
    input_ids[0, 15] = sep_id
    token_type_ids[0, 16:] = 1
    input_ids[0, -1] = sep_id
    input_ids[1, 12] = sep_id
    token_type_ids[1, 13:-5] = 1
    input_ids[1, -6] = sep_id
    input_ids[1, -5:] = 0  # [PAD]
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask, token_type_ids]


def get_init_inputs():
    # squeezebert/squeezebert-uncased config.json. Kept: gelu, layer_norm_eps 1e-12, type_vocab_size 2,
    # initializer_range 0.02, pad id 0, hidden/attention dropout 0.1 (inactive in eval), all group counts.
    return [SqueezeBertConfig(
        vocab_size=vocab_size,  # published 30528
        hidden_size=128,  # published 768
        embedding_size=128,  # published 768 (must equal hidden_size)
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=128,  # published 512
        type_vocab_size=2,
        initializer_range=0.02,
        layer_norm_eps=1e-12,
        pad_token_id=0,
        q_groups=4,
        k_groups=4,
        v_groups=4,
        post_attention_groups=1,
        intermediate_groups=4,
        output_groups=4,
    )]
