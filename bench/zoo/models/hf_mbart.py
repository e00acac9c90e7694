"""mBART-50 (multilingual denoising-pretrained transformer encoder-decoder, BART-style but pre-LayerNorm: a
LayerNorm before each self-attention, cross-attention and FFN sub-layer, a LayerNorm on the embeddings and a final
LayerNorm at the end of both the encoder and the decoder; token embeddings scaled by sqrt(d_model) and shared by
the encoder, the decoder and the LM head; learned absolute position embeddings with BART's offset of 2; GELU
FFNs; an added final-logits bias; language-id tokens: the source is `[src_lang] X </s>` and the decoder reads
`</s> [tgt_lang] Y`), after `facebook/mbart-large-50`, shrunk.

MBartForConditionalGeneration, one teacher-forced step as in translation fine-tuning / scoring: the source goes
through the encoder, the decoder reads the target shifted right (decoder_start_token_id </s>, then the target
language code).
Shrunk: d_model 1024 -> 128, 12 + 12 layers -> 2 + 2, 16 heads -> 4, ffn 4096 -> 512, vocab 250054 -> 1000
(the 52 language codes and <mask> stay at the end of the vocabulary: id - 249054, so en_XX 250004 -> 950,
fr_XX 250008 -> 954, <mask> 250053 -> 999).
Inputs: input_ids (2, 32) = en_XX, tokens, </s> (the second sample is shorter and right-padded by 5 pad tokens),
attention_mask (second sample's last 5 positions 0), decoder_input_ids (2, 24) = </s>, fr_XX, tokens.
Output: LM logits (2, 24, 1000).
"""
import torch
from torch import nn
from transformers import MBartConfig, MBartForConditionalGeneration

batch_size = 2
seq_len = 32
decoder_seq_len = 24
vocab_size = 1000
bos_token_id, pad_token_id, eos_token_id = 0, 1, 2
en_XX, fr_XX = 950, 954  # published 250004, 250008
first_lang_code = 947  # published 250001 (ar_AR); language codes and <mask> take the ids from here up


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = MBartForConditionalGeneration(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          decoder_input_ids=decoder_input_ids).logits


def get_inputs():
    # MBart-50 tokenizer layout: source = [src_lang_code] X [</s>], padded on the right with <pad>.
    input_ids = torch.randint(4, first_lang_code, (batch_size, seq_len))
    input_ids[:, 0] = en_XX
    input_ids[0, -1] = eos_token_id
    input_ids[1, -6] = eos_token_id
    input_ids[1, -5:] = pad_token_id
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    # labels = [tgt_lang_code] Y [</s>]; shifted right, the decoder reads </s> [tgt_lang_code] Y.
    decoder_input_ids = torch.randint(4, first_lang_code, (batch_size, decoder_seq_len))
    decoder_input_ids[:, 0] = eos_token_id  # decoder_start_token_id
    decoder_input_ids[:, 1] = fr_XX
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # facebook/mbart-large-50 config.json. Kept: activation gelu, scale_embedding True, pre-LayerNorm with
    # embedding and final LayerNorms (fixed in the MBart classes), max_position_embeddings 1024, dropout 0.1,
    # attention / activation dropout 0, layerdrop 0, init_std 0.02, tied embeddings and LM head,
    # bos 0 / pad 1 / eos 2, decoder_start_token_id 2, forced_eos_token_id 2.
    return [MBartConfig(
        vocab_size=vocab_size,  # published 250054
        d_model=128,  # published 1024
        encoder_layers=2,  # published 12
        decoder_layers=2,  # published 12
        encoder_attention_heads=4,  # published 16
        decoder_attention_heads=4,  # published 16
        encoder_ffn_dim=512,  # published 4096
        decoder_ffn_dim=512,  # published 4096
        max_position_embeddings=1024,
        activation_function="gelu",
        scale_embedding=True,
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        encoder_layerdrop=0.0,
        decoder_layerdrop=0.0,
        init_std=0.02,
        tie_word_embeddings=True,
        bos_token_id=bos_token_id,
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
        decoder_start_token_id=eos_token_id,
        forced_eos_token_id=eos_token_id,
    )]
