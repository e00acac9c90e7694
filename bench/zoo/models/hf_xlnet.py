"""XLNet encoder (Transformer-XL style relative positional attention: sinusoidal relative position encodings
projected per layer, content + position score terms with learned per-layer biases r_w_bias / r_r_bias (untie_r)
and a relative shift of the position scores; a segment term from learned segment embeddings and r_s_bias on
whether two tokens are in the same segment; post-LN residual blocks with a GELU FFN; no absolute positions), after
`xlnet/xlnet-base-cased`, shrunk.

XLNetModel run as a plain bidirectional encoder (attn_type "bi", no perm_mask / target_mapping, so only the
content stream runs: the two-stream query path of pre-training is off). mem_len is None as published, so in eval
(use_mems_eval) the model also returns each layer's input as memory; only last_hidden_state is returned here.
Shrunk: d_model 768 -> 128, 12 layers -> 2, 12 heads -> 4, d_head 64 -> 32, d_inner 3072 -> 512,
vocab 32000 -> 1000.
Inputs as the XLNet tokenizer returns them: input_ids (2, 48), each sample ending in <sep> (4) <cls> (3), the second
sample left-padded by 6 tokens (XLNet pads on the left; <pad> = 5), attention_mask (0 on the pads), token_type_ids
(0 for the sentence and <sep>, 2 for <cls>, 3 for the pads). Output: last_hidden_state (2, 48, 128).
"""
import torch
from torch import nn
from transformers import XLNetConfig, XLNetModel

batch_size = 2
seq_len = 48
vocab_size = 1000
cls_id, sep_id, pad_id = 3, 4, 5
num_pad = 6


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = XLNetModel(config)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state


def get_inputs():
    # <pad> ... A <sep> <cls>: XLNet puts <sep> <cls> at the end and pads on the left
    input_ids = torch.randint(9, vocab_size, (batch_size, seq_len))  # 0-8: special tokens
    token_type_ids = torch.zeros(batch_size, seq_len, dtype=torch.long)
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    input_ids[:, -2] = sep_id
    input_ids[:, -1] = cls_id
    token_type_ids[:, -1] = 2  # <cls> segment
    input_ids[1, :num_pad] = pad_id
    attention_mask[1, :num_pad] = 0
    token_type_ids[1, :num_pad] = 3  # pad_token_type_id
    return [input_ids, attention_mask, token_type_ids]


def get_init_inputs():
    # xlnet/xlnet-base-cased config.json. Kept: attn_type "bi", bi_data false, clamp_len -1, same_length false,
    # mem_len None, reuse_len None, untie_r (per-layer r_w / r_r / r_s biases: the library always builds them so,
    # and has no such field), gelu, layer_norm_eps 1e-12, dropout 0.1 (inactive in eval),
    # initializer_range 0.02, use_mems_eval true / use_mems_train false, pad 5 / bos 1 / eos 2, the summary
    # (sequence-summary head) settings.
    return [XLNetConfig(
        vocab_size=vocab_size,  # published 32000
        d_model=128,  # published 768
        n_layer=2,  # published 12
        n_head=4,  # published 12
        d_head=32,  # published 64
        d_inner=512,  # published 3072
        ff_activation="gelu",
        attn_type="bi",
        initializer_range=0.02,
        layer_norm_eps=1e-12,
        dropout=0.1,
        mem_len=None,
        reuse_len=None,
        use_mems_eval=True,
        use_mems_train=False,
        bi_data=False,
        clamp_len=-1,
        same_length=False,
        summary_type="last",
        summary_use_proj=True,
        summary_activation="tanh",
        summary_last_dropout=0.1,
        start_n_top=5,
        end_n_top=5,
        pad_token_id=pad_id,
        bos_token_id=1,
        eos_token_id=2,
    )]
