"""PatchTSMixer forecaster (TSMixer over patches: each channel's series is std-scaled, cut into patches, then
MLP-Mixer blocks alternate an inter-patch MLP and an intra-patch feature MLP, each followed by a gated
(softmax-gated) attention, with channel-independent weights in `common_channel` mode; a flatten-linear head
predicts the horizon, which is then un-scaled), after the HF ETTh1 forecasting example
`ibm/patchtsmixer-etth1-forecasting`, shrunk.

Shrunk: context_length 512 -> 64 (8 patches of 8), prediction_length 96 -> 16, 8 layers -> 2.
Kept: 7 input channels (ETTh1), d_model 16, expansion 2, patch 8 / stride 8, gated_attn, std scaling, mse loss.
Inputs: past_values (2, 64, 7) and observed_mask (2, 64, 7) (1 = observed; sample 1 has its last 5 steps missing).
Output: (prediction_outputs (2, 16, 7), last_hidden_state (2, 7, 8, 16)).
"""
import torch
from torch import nn
from transformers import PatchTSMixerConfig, PatchTSMixerForPrediction

batch_size = 2
context_length = 64
num_input_channels = 7


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = PatchTSMixerForPrediction(config)

    def forward(self, past_values, observed_mask):
        out = self.model(past_values=past_values, observed_mask=observed_mask)
        return out.prediction_outputs, out.last_hidden_state


def get_inputs():
    past_values = torch.randn(batch_size, context_length, num_input_channels)
    observed_mask = torch.ones(batch_size, context_length, num_input_channels)
    observed_mask[1, -5:] = 0
    past_values = past_values * observed_mask  # missing values are zero-filled
    return [past_values, observed_mask]


def get_init_inputs():
    # ibm/patchtsmixer-etth1-forecasting config. Kept: d_model 16, expansion_factor 2, patch 8 / stride 8,
    # mode common_channel, gated_attn True, scaling std, loss mse, dropout 0.2 / head_dropout 0.2 (off in eval).
    return [PatchTSMixerConfig(
        context_length=context_length,  # published 512
        prediction_length=16,  # published 96
        patch_length=8,
        patch_stride=8,
        num_input_channels=num_input_channels,  # published 7 (ETTh1)
        d_model=16,
        num_layers=2,  # published 8
        expansion_factor=2,
        dropout=0.2,
        head_dropout=0.2,
        mode="common_channel",
        gated_attn=True,
        scaling="std",
        loss="mse",
    )]
