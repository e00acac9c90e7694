"""ESM-2 protein language model (pre-LayerNorm BERT-style encoder with rotary position embeddings, token-dropout
embedding rescaling around <mask> tokens, final LayerNorm, MLM head tied to the 33-token amino-acid vocabulary),
after `facebook/esm2_t6_8M_UR50D`, shrunk.

EsmForMaskedLM on a batch of protein sequences <cls> residues <eos> with a few residues replaced by <mask>
(as in masked-residue prediction); the second sequence is shorter and right-padded.
Shrunk: hidden 320 -> 64, 6 layers -> 3, 20 heads -> 4, intermediate 1280 -> 256, max_position_embeddings
1026 -> 66 (unused by rotary). Kept: the full 33-token vocabulary.
Inputs: input_ids (2, 48), attention_mask with the second sample right-padded (pad id 1).
Output: MLM logits (2, 48, 33).
"""
import torch
from torch import nn
from transformers import EsmConfig, EsmForMaskedLM

batch_size = 2
seq_len = 48
vocab_size = 33  # <cls> <pad> <eos> <unk>, 20 standard + 5 non-standard residues, '.', '-', <null_1>, <mask>
cls_token_id, pad_token_id, eos_token_id, mask_token_id = 0, 1, 2, 32


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = EsmForMaskedLM(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits


def get_inputs():
    input_ids = torch.randint(4, 24, (batch_size, seq_len))  # the 20 standard amino acids
    input_ids[:, 0] = cls_token_id
    input_ids[0, -1] = eos_token_id
    input_ids[1, -9] = eos_token_id
    input_ids[1, -8:] = pad_token_id
    input_ids[:, [5, 17, 30]] = mask_token_id  # residues to predict
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -8:] = 0
    return [input_ids, attention_mask]


def get_init_inputs():
    # facebook/esm2_t6_8M_UR50D config.json. Kept: position_embedding_type "rotary", token_dropout True,
    # emb_layer_norm_before False, layer_norm_eps 1e-5, dropout 0.0, gelu, vocab 33, pad 1 / mask 32,
    # tied MLM decoder.
    return [EsmConfig(
        vocab_size=vocab_size,
        hidden_size=64,  # published 320
        num_hidden_layers=3,  # published 6
        num_attention_heads=4,  # published 20
        intermediate_size=256,  # published 1280
        position_embedding_type="rotary",
        max_position_embeddings=66,  # published 1026
        token_dropout=True,
        emb_layer_norm_before=False,
        layer_norm_eps=1e-5,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        pad_token_id=pad_token_id,
        mask_token_id=mask_token_id,
        tie_word_embeddings=True,
    )]
