"""PatchTST for multivariate time-series forecasting (channel-independent: each channel's series is standard-scaled,
cut into patches that become the tokens of a shared pre-norm transformer encoder with BatchNorm and sin-cos
positions; a flatten + linear head maps each channel's patch embeddings to the forecast, then the scaling is
undone), after `ibm-granite/granite-timeseries-patchtst` (ETTh1, 7 channels), shrunk.

PatchTSTForPrediction with loss "mse" (point forecast, no distribution head).
Shrunk: context_length 512 -> 96 (8 patches of 12 instead of 42), prediction_length 96 -> 24, d_model 128 -> 64,
3 layers -> 2, 16 heads -> 4, ffn_dim 512 -> 128. Kept: 7 input channels, patch_length 12 / patch_stride 12.
Input: past_values (2, 96, 7).
Output: prediction_outputs (2, 24, 7).
"""
import torch
from torch import nn
from transformers import PatchTSTConfig, PatchTSTForPrediction

batch_size = 2
context_length = 96
prediction_length = 24
num_input_channels = 7


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PatchTSTForPrediction(config)

    def forward(self, past_values):
        return self.model(past_values=past_values).prediction_outputs


def get_inputs():
    # a daily-periodic signal plus noise per channel, with channel-dependent level and amplitude
    t = torch.arange(context_length, dtype=torch.float32).view(1, -1, 1)
    level = torch.linspace(-2.0, 5.0, num_input_channels).view(1, 1, -1)
    amp = torch.linspace(0.5, 3.0, num_input_channels).view(1, 1, -1)
    past_values = level + amp * torch.sin(2 * torch.pi * t / 24) + 0.3 * torch.randn(batch_size, context_length,
                                                                                     num_input_channels)
    return [past_values]


def get_init_inputs():
    # ibm-granite/granite-timeseries-patchtst config.json. Kept: patch_length 12, patch_stride 12, 7 channels,
    # norm_type "batchnorm", pre_norm, gelu, scaling "std", sincos positions, no CLS token, shared embedding and
    # projection (channel independence), loss "mse", head_dropout 0.2 (inactive in eval;
    # the published "dropout": 0.2 is a field this PatchTSTConfig no longer reads).
    return [PatchTSTConfig(
        num_input_channels=num_input_channels,
        context_length=context_length,  # published 512
        prediction_length=prediction_length,  # published 96
        patch_length=12,
        patch_stride=12,
        d_model=64,  # published 128
        num_hidden_layers=2,  # published 3
        num_attention_heads=4,  # published 16
        ffn_dim=128,  # published 512
        norm_type="batchnorm",
        norm_eps=1e-5,
        pre_norm=True,
        activation_function="gelu",
        positional_encoding_type="sincos",
        use_cls_token=False,
        share_embedding=True,
        share_projection=True,
        channel_attention=False,
        scaling="std",
        loss="mse",
        head_dropout=0.2,
        attention_dropout=0.0,
        do_mask_input=None,
    )]
