"""BigBird-Pegasus: Pegasus encoder-decoder whose encoder uses BigBird block-sparse attention (global first/
last blocks, a 3-block sliding window and random blocks; the input is padded to a block multiple), the
decoder full attention, after `google/bigbird-pegasus-large-arxiv`, shrunk.

Shrunk: d_model 1024 -> 128, 16 + 16 layers -> 2 + 2, 16 heads -> 4, ffn 4096 -> 256, vocab 96103 -> 1000,
block_size 64 -> 8, max_position_embeddings 4096 -> 512. The 128-token input is 16 blocks, longer than
(5 + 2 * num_random_blocks) * block_size = 88, so attention stays block_sparse (no fallback to full).
Inputs: input_ids (2, 128), an attention_mask whose second sample is right-padded (5 positions),
decoder_input_ids (2, 16).
Output: the decoder's last_hidden_state (2, 16, 128).
"""
import torch
from torch import nn
from transformers import BigBirdPegasusConfig, BigBirdPegasusModel

batch_size = 2
seq_len = 128
decoder_seq_len = 16
vocab_size = 1000


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BigBirdPegasusModel(config)

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            decoder_input_ids=decoder_input_ids,
        ).last_hidden_state


def get_inputs():
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len))
    attention_mask = torch.ones(batch_size, seq_len, dtype=torch.long)
    attention_mask[1, -5:] = 0
    decoder_input_ids = torch.randint(0, vocab_size, (batch_size, decoder_seq_len))
    return [input_ids, attention_mask, decoder_input_ids]


def get_init_inputs():
    # google/bigbird-pegasus-large-arxiv config.json. Kept: attention_type "block_sparse",
    # num_random_blocks 3, gelu_new, scale_embedding, use_bias False, pad 0 / eos 1 / bos 2,
    # decoder_start_token_id 0.
    return [BigBirdPegasusConfig(
        vocab_size=vocab_size,  # published 96103
        d_model=128,  # published 1024
        encoder_layers=2,  # published 16
        decoder_layers=2,  # published 16
        encoder_attention_heads=4,  # published 16
        decoder_attention_heads=4,  # published 16
        encoder_ffn_dim=256,  # published 4096
        decoder_ffn_dim=256,  # published 4096
        max_position_embeddings=512,  # published 4096
        attention_type="block_sparse",  # published "block_sparse"
        block_size=8,  # published 64
        num_random_blocks=3,  # published 3
        decoder_start_token_id=0,  # published 0
    )]
