"""DeBERTa-v2 sequence classifier (disentangled attention: content-to-content plus content-to-position and
position-to-content terms against one relative-position embedding table, log-bucketed relative positions, the
position terms reusing the content query/key projections (share_att_key), LayerNorm on the relative embeddings,
no absolute position embeddings in the input, a 1-D convolution (kernel 3) over the embeddings added to the first
layer's output, then LayerNorm; a pooled [CLS] head: dense + gelu, then the classifier), after
`microsoft/deberta-v2-xlarge-mnli`, shrunk.

DebertaV2ForSequenceClassification, 3 labels (MNLI: contradiction / neutral / entailment).
Shrunk: hidden 1536 -> 128, 24 layers -> 2, 24 heads -> 4 (head size 64 -> 32), intermediate 6144 -> 512,
position_buckets 256 -> 16, vocab 128100 -> 1000. With 16 buckets on a 48-token input, relative distances above
8 fall into the log buckets, so the bucketing bites (with the published 256 buckets it only starts past 128).
Inputs: input_ids (2, 48), attention_mask with the second sample right-padded (pad id 0).
Output: classification logits (2, 3).
"""
import torch
from torch import nn
from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

batch_size = 2
seq_len = 48
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = DebertaV2ForSequenceClassification(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(4, vocab_size, (batch_size, seq_len))
    input_ids[:, 0] = 1  # [CLS]
    input_ids[0, -1] = 2  # [SEP]
    input_ids[1, -6] = 2
    input_ids[1, -5:] = 0  # [PAD]
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # microsoft/deberta-v2-xlarge-mnli config.json. Kept: relative_attention, pos_att_type "p2c|c2p",
    # max_relative_positions -1 (= max_position_embeddings 512), position_biased_input False, share_att_key,
    # norm_rel_ebd "layer_norm", conv_kernel_size 3 with conv_act gelu, gelu, layer_norm_eps 1e-7,
    # type_vocab_size 0, pooler_hidden_size = hidden, pooling dropout 0 and gelu (pooler_dropout / pooler_hidden_act),
    # dropouts 0.1 (inactive in eval), initializer_range 0.02, pad 0.
    return [DebertaV2Config(
        vocab_size=vocab_size,  # published 128100
        hidden_size=128,  # published 1536
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 24
        attention_head_size=32,  # published 64
        intermediate_size=512,  # published 6144
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=512,
        type_vocab_size=0,
        initializer_range=0.02,
        layer_norm_eps=1e-7,
        relative_attention=True,
        max_relative_positions=-1,
        position_buckets=16,  # published 256
        pos_att_type="p2c|c2p",
        share_att_key=True,
        norm_rel_ebd="layer_norm",
        position_biased_input=False,
        conv_kernel_size=3,
        conv_act="gelu",
        pooler_hidden_size=128,  # published 1536 (= hidden)
        pooler_dropout=0.0,
        pooler_hidden_act="gelu",
        pad_token_id=0,
        num_labels=3,  # the MNLI head: contradiction / neutral / entailment
    )]
