"""LUKE entity-aware encoder for span NER (RoBERTa words plus a second stream of entity tokens with their own
embeddings and mention-averaged positions; entity-aware self-attention with separate query projections for
word-to-word, word-to-entity, entity-to-word and entity-to-entity), after
`studio-ousia/luke-large-finetuned-conll-2003`, shrunk. LukeForEntitySpanClassification; output: logits (2, 6, 5).
"""
import torch
from torch import nn
from transformers import LukeConfig, LukeForEntitySpanClassification

batch_size = 2
seq_len = 16
num_entities = 6  # candidate spans per sample
max_mention_length = 4  # tokenizer default 30
vocab_size = 1000
entity_vocab_size = 1000
pad_token_id = 1
mask_entity_id = 2  # every candidate span is fed as the [MASK] entity


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = LukeForEntitySpanClassification(config)

    def forward(self, input_ids, attention_mask, entity_ids, entity_attention_mask, entity_position_ids,
                entity_start_positions, entity_end_positions):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            entity_ids=entity_ids,
            entity_attention_mask=entity_attention_mask,
            entity_position_ids=entity_position_ids,
            entity_start_positions=entity_start_positions,
            entity_end_positions=entity_end_positions,
        ).logits


def get_inputs():
    lens = [seq_len, 12]
    spans = [[(1, 2), (3, 5), (6, 6), (8, 11), (12, 13), (14, 14)], [(1, 1), (2, 4), (6, 8), (9, 10)]]
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    entity_ids = torch.zeros(batch_size, num_entities, dtype=torch.long)
    entity_attention_mask = torch.zeros(batch_size, num_entities, dtype=torch.long)
    entity_position_ids = torch.full((batch_size, num_entities, max_mention_length), -1)
    entity_start_positions = torch.zeros(batch_size, num_entities, dtype=torch.long)
    entity_end_positions = torch.zeros(batch_size, num_entities, dtype=torch.long)
    for i, (n, sp) in enumerate(zip(lens, spans, strict=True)):
        input_ids[i, :n] = torch.randint(4, vocab_size, (n,))
        input_ids[i, 0], input_ids[i, n - 1] = 0, 2  # <s> ... </s>
        attention_mask[i, :n] = 1
        for j, (s, e) in enumerate(sp):
            entity_ids[i, j] = mask_entity_id
            entity_attention_mask[i, j] = 1
            entity_position_ids[i, j, : e - s + 1] = torch.arange(s, e + 1)
            entity_start_positions[i, j], entity_end_positions[i, j] = s, e
    return [input_ids, attention_mask, entity_ids, entity_attention_mask, entity_position_ids,
            entity_start_positions, entity_end_positions]


def get_init_inputs():
    # Kept: use_entity_aware_attention, gelu, layer_norm_eps 1e-5, 5 CoNLL labels, RoBERTa pad 1 / bos 0 / eos 2.
    return [LukeConfig(
        vocab_size=vocab_size,  # published 50267
        entity_vocab_size=entity_vocab_size,  # published 500000
        hidden_size=64,  # published 1024
        entity_emb_size=32,  # published 256
        num_hidden_layers=2,  # published 24
        num_attention_heads=4,  # published 16
        intermediate_size=256,  # published 4096
        max_position_embeddings=64,  # published 514
        type_vocab_size=1,
        layer_norm_eps=1e-5,
        use_entity_aware_attention=True,
        num_labels=5,
        pad_token_id=pad_token_id,
        bos_token_id=0,
        eos_token_id=2,
    )]
