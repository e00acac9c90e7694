"""GIT image-to-text model (Wang et al. 2022, "GIT: A Generative Image-to-text Transformer for Vision and
Language"), after `microsoft/git-base-coco` (the captioning fine-tune of `microsoft/git-base`), shrunk, run as a user
computing the captioning loss runs it (teacher forcing on the tokenized caption).

GitForCausalLM. Image encoder: a CLIP ViT (patch 16, CLS token, learned positions, pre LayerNorm ("pre_layrnorm"),
pre-norm layers with quick_gelu MLP, post LayerNorm); all 197 tokens (CLS + 14 x 14 patches) are kept and projected
by Linear + LayerNorm (GitProjection) to the text width. Text: BERT-style embeddings (word + learned absolute
positions counted over the text only, LayerNorm) for the caption; the projected image tokens are concatenated in
front and the whole sequence runs through ONE stack of post-LN BERT layers (self-attention only, GELU FFN) with a
mixed mask: the image tokens attend to each other bidirectionally (block_sequence_ids) but not to the text, the text
attends to all image tokens and causally to the text, padded text is masked (the mask is widened by ones over the
image tokens). The decoder holds a DynamicCache (use_cache default True). A separate LM head with bias gives
logits at every position, image positions included.
Shrunk: vision hidden 768 -> 64, 12 layers -> 2, 12 heads -> 4, intermediate 3072 -> 256 (image 224 and patch 16
kept: 197 image tokens); text hidden 768 -> 128, 6 layers -> 2, 12 heads -> 4 (head size 64 -> 32), intermediate
3072 -> 512, vocab 30522 -> 1024 (BERT uncased WordPiece; [PAD] 0, [CLS] 101 = bos, [SEP] 102 = eos kept).
Inputs, as GitProcessor builds them for training: pixel_values (2, 3, 224, 224) (CLIP-normalized); input_ids =
[CLS] caption [SEP] (BERT tokenizer, caption piece ids are stand-ins), 16 tokens for sample 0 and 11 for sample 1,
right-padded with [PAD]; attention_mask (2, 16) int64 with the padding 0.
Output: LM logits over image + text positions (2, 197 + 16 = 213, 1024).
"""
import torch
from torch import nn
from transformers import GitConfig, GitForCausalLM, GitVisionConfig

batch_size = 2
image_size = 224
patch_size = 16
vocab_size = 1024  # published 30522
pad_token_id, cls_token_id, sep_token_id = 0, 101, 102
caption_lens = [14, 9]


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = GitForCausalLM(config)

    def forward(self, input_ids, attention_mask, pixel_values):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, pixel_values=pixel_values).logits


def get_inputs():
    seqs = [[cls_token_id] + torch.randint(103, vocab_size, (n,)).tolist() + [sep_token_id] for n in caption_lens]
    seq_len = max(len(s) for s in seqs)
    input_ids = torch.full((batch_size, seq_len), pad_token_id)
    attention_mask = torch.zeros(batch_size, seq_len, dtype=torch.long)
    for i, s in enumerate(seqs):
        input_ids[i, : len(s)] = torch.tensor(s)
        attention_mask[i, : len(s)] = 1
    pixel_values = torch.randn(batch_size, 3, image_size, image_size)
    return [input_ids, attention_mask, pixel_values]


def get_init_inputs():
    # microsoft/git-base-coco config.json. Kept: vision image 224 / patch 16, quick_gelu, layer_norm_eps 1e-5;
    # text gelu, max_position_embeddings 1024, layer_norm_eps 1e-12, dropouts 0.1 (inactive in eval),
    # initializer_range 0.02, untied LM head, pad 0 / bos 101 / eos 102, num_image_with_embedding None (one image).
    vision_config = GitVisionConfig(
        hidden_size=64,  # published 768
        intermediate_size=256,  # published 3072
        num_hidden_layers=2,  # published 12
        num_attention_heads=4,  # published 12
        num_channels=3,
        image_size=image_size,
        patch_size=patch_size,
        hidden_act="quick_gelu",
        layer_norm_eps=1e-5,
        attention_dropout=0.0,
    )
    return [GitConfig(
        vision_config=vision_config,
        vocab_size=vocab_size,
        hidden_size=128,  # published 768
        num_hidden_layers=2,  # published 6
        num_attention_heads=4,  # published 12
        intermediate_size=512,  # published 3072
        hidden_act="gelu",
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        max_position_embeddings=1024,
        initializer_range=0.02,
        layer_norm_eps=1e-12,
        tie_word_embeddings=False,
        pad_token_id=pad_token_id,
        bos_token_id=cls_token_id,
        eos_token_id=sep_token_id,
        num_image_with_embedding=None,
    )]
