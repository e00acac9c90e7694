"""TAPAS table question answering (Herzig et al., ACL 2020, "TAPAS: Weakly Supervised Table Parsing via
Pre-training"; `google/tapas-base-finetuned-wtq`), shrunk: a BERT encoder over a flattened (question, table) token
sequence whose structure lives in seven token-type embeddings (segment, column, row, previous answer, column rank,
inverse column rank, numeric relation) summed with the word and position embeddings; position ids are reset at
every cell (reset_position_index_per_cell: the cell of each token is the product index row x column, the first
position per cell is a segmented min (scatter_reduce amin), gathered back per token and subtracted). The QA head
works on segments, not tokens: per-token selection logits (a dot product with a weight vector, / temperature);
column logits = the mean over each cell's tokens (segmented mean over the row x column product index), then the
mean over each column's non-empty cells (a second segmented reduction), with the question / padding column masked
to -10000 (allow_empty_column_selection False); the best column is taken by argmax per example and every token
outside it gets its logit replaced by -10000 (select_one_column), so the output depends on which column wins.
The pooled [CLS] state feeds a 4-way aggregation classifier (NONE / SUM / AVERAGE / COUNT).

TapasForQuestionAnswering (inference: no labels); the output is the tuple (cell-selection logits (2, 48),
aggregation logits (2, 4)).
Shrunk: hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4, intermediate 3072 -> 256, vocab 30522 -> 1000,
max_position_embeddings 1024 -> 64.
The cell-selection weights, zero in a fresh model with init_cell_selection_weights_to_zero (the checkpoint fills
them; all-zero logits make every column tie), are drawn N(0, 0.02^2).
Kept: type_vocab_sizes (3, 256, 256, 2, 256, 256, 10), 4 aggregation labels, select_one_column, no empty-column
selection, temperature 0.0352513, reset_position_index_per_cell, max 64 rows / 32 columns, gelu,
layer_norm_eps 1e-12.
Inputs: input_ids (2, 48): [CLS] question [SEP] then a 3-column table (a text column, two numeric columns with
their column ranks and inverse ranks) of 8 and 5 rows: 47 and 35 tokens, right-padded to 48;
attention_mask; token_type_ids (2, 48, 7) as TapasTokenizer lays them out.
"""
import torch
from torch import nn
from transformers import TapasConfig, TapasForQuestionAnswering

batch_size = 2
seq_len = 48
num_rows = [8, 5]
question_len = 7
vocab_size = 1000
cls_id, sep_id, pad_id = 101, 102, 0


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = TapasForQuestionAnswering(config)
        # init_cell_selection_weights_to_zero leaves these at 0 (filled by the checkpoint): give them values
        with torch.no_grad():
            self.model.output_weights.normal_(0.0, config.initializer_range)
            self.model.column_output_weights.normal_(0.0, config.initializer_range)

    def forward(self, input_ids, attention_mask, token_type_ids):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return out.logits, out.logits_aggregation


def _example(rows):
    """One (question, table) pair laid out as TapasTokenizer does: token ids and the 7 token-type channels."""
    ids, types = [cls_id], [[0] * 7]
    ids += torch.randint(1000 // 2, vocab_size, (question_len,)).tolist()
    types += [[0] * 7 for _ in range(question_len)]
    ids.append(sep_id)
    types.append([0] * 7)
    for col in range(3):  # header row (row 0): two word pieces per column name
        ids += torch.randint(200, 500, (2,)).tolist()
        types += [[1, col + 1, 0, 0, 0, 0, 0]] * 2
    values = torch.rand(2, rows)
    for row in range(rows):
        ids += torch.randint(200, 500, (2,)).tolist()  # text cell: two word pieces
        types += [[1, 1, row + 1, 0, 0, 0, 0]] * 2
        for col in range(2):  # numeric cells: one token each, ranked within the column
            rank = int((values[col] < values[col, row]).sum()) + 1
            ids.append(int(110 + values[col, row] * 80))
            types.append([1, col + 2, row + 1, 0, rank, rows + 1 - rank, 0])
    return ids, types


def get_inputs():
    input_ids = torch.full((batch_size, seq_len), pad_id, dtype=torch.long)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    token_type_ids = torch.zeros(batch_size, seq_len, 7, dtype=torch.long)
    for b in range(batch_size):
        ids, types = _example(num_rows[b % len(num_rows)])
        n = len(ids)
        input_ids[b, :n] = torch.tensor(ids)
        token_type_ids[b, :n] = torch.tensor(types)
        attention_mask[b, :n] = 1
    return [input_ids, attention_mask, token_type_ids]


def get_init_inputs():
    # google/tapas-base-finetuned-wtq config.json. Kept: 4 aggregation labels, use_answer_as_supervision,
    # select_one_column, allow_empty_column_selection False, temperature 0.0352513,
    # cell_selection_preference 0.207951, answer_loss_cutoff 0.664694, huber_loss_delta 0.121194,
    # init_cell_selection_weights_to_zero, reset_position_index_per_cell, average_approximation_function ratio,
    # positive_label_weight 10, type_vocab_sizes (3, 256, 256, 2, 256, 256, 10), gelu, layer_norm_eps 1e-12.
    return [TapasConfig(
        vocab_size=vocab_size,  # published 30522
        hidden_size=64,  # published 768
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        intermediate_size=256,  # published 3072
        max_position_embeddings=64,  # published 1024
        num_aggregation_labels=4,
        aggregation_loss_weight=1.0,
        use_answer_as_supervision=True,
        answer_loss_importance=1.0,
        huber_loss_delta=0.121194,
        temperature=0.0352513,
        cell_selection_preference=0.207951,
        answer_loss_cutoff=0.664694,
        select_one_column=True,
        allow_empty_column_selection=False,
        init_cell_selection_weights_to_zero=True,
        reset_position_index_per_cell=True,
        average_approximation_function="ratio",
        pad_token_id=pad_id,
    )]
