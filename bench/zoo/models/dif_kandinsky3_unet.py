"""diffusers `Kandinsky3UNet`: the Kandinsky 3 latent UNet (bottleneck ResNet blocks with compression/expansion,
cross-attention to projected FLAN-UL2 text states with a text-attention-mask, attention pooling of the text into the
time embedding), after `kandinsky-community/kandinsky-3` `unet/config.json`, shrunk. Output: noise prediction (2, 4, 16, 16).
"""
import torch
from torch import nn
from diffusers import Kandinsky3UNet

batch_size = 2
latent_hw = 16
text_len = 16
encoder_hid_dim = 64


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = Kandinsky3UNet(**config)

    def forward(self, sample, timestep, encoder_hidden_states, encoder_attention_mask):
        return self.model(
            sample, timestep, encoder_hidden_states=encoder_hidden_states,
            encoder_attention_mask=encoder_attention_mask,
        ).sample


def get_inputs():
    sample = torch.randn(batch_size, 4, latent_hw, latent_hw)
    timestep = torch.tensor([500, 500])
    encoder_hidden_states = torch.randn(batch_size, text_len, encoder_hid_dim)
    encoder_attention_mask = torch.ones(batch_size, text_len, dtype=torch.long)
    encoder_attention_mask[1, -4:] = 0
    return [sample, timestep, encoder_hidden_states, encoder_attention_mask]


def get_init_inputs():
    return [dict(
        in_channels=4,
        time_embedding_dim=64,  # published 1536
        groups=8,  # published 32
        attention_head_dim=16,  # published 64
        layers_per_block=2,  # published 3 (1 fails to build in diffusers)
        block_out_channels=(32, 64, 128, 256),  # published (384, 768, 1536, 3072)
        cross_attention_dim=64,  # published 4096
        encoder_hid_dim=encoder_hid_dim,  # published 4096
    )]
