"""MobileBERT (narrow embeddings with trigram convolution-like concat, per-layer bottleneck in/out projections,
key/query shared bottleneck, 4 stacked feed-forward networks per layer, NoNorm elementwise affine instead of
LayerNorm, relu), after `google/mobilebert-uncased`, with a sequence-classification head, shrunk.

MobileBertForSequenceClassification (pooler on [CLS] with tanh, 3 labels).
Shrunk: hidden 512 -> 128, embedding_size 128 -> 32, intra_bottleneck_size 128 -> 32, 24 layers -> 3,
intermediate 512 -> 128, vocab 30522 -> 1000, max_position_embeddings 512 -> 128. Kept: 4 heads,
4 feed-forward networks per layer.
Inputs: input_ids (2, 32), attention_mask with the second sample right-padded (pad id 0), token_type_ids
(two segments, as the tokenizer returns for a sentence pair).
Output: classification logits (2, 3).
"""
import torch
from torch import nn
from transformers import MobileBertConfig, MobileBertForSequenceClassification

batch_size = 2
seq_len = 32
vocab_size = 1000
num_labels = 3


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MobileBertForSequenceClassification(config)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).logits


def get_inputs():
    input_ids = torch.randint(103, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 101  # [CLS]
    input_ids[:, 12] = 102  # [SEP] between the two segments
    input_ids[0, -1] = 102
    input_ids[1, -6] = 102
    input_ids[1, -5:] = 0  # pad
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    token_type_ids[0, 13:] = 1
    token_type_ids[1, 13:-5] = 1
    return [input_ids, attention_mask, token_type_ids]


def get_init_inputs():
    # google/mobilebert-uncased config.json. Kept: relu, normalization_type "no_norm", trigram_input,
    # use_bottleneck, key_query_shared_bottleneck, no bottleneck attention, 4 heads, 4 FFNs per layer,
    # type_vocab_size 2, classifier_activation (tanh pooler), pad 0.
    return [MobileBertConfig(
        vocab_size=vocab_size,  # published 30522
        hidden_size=128,  # published 512
        embedding_size=32,  # published 128
        intra_bottleneck_size=32,  # published 128
        num_hidden_layers=3,  # published 24
        num_attention_heads=4,
        intermediate_size=128,  # published 512
        num_feedforward_networks=4,
        hidden_act="relu",
        normalization_type="no_norm",
        trigram_input=True,
        use_bottleneck=True,
        use_bottleneck_attention=False,
        key_query_shared_bottleneck=True,
        classifier_activation=True,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=128,  # published 512
        type_vocab_size=2,
        pad_token_id=0,
        num_labels=num_labels,  # fine-tuning head (e.g. MNLI: 3)
    )]
