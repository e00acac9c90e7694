"""TimesFM 2.0 (Google, Das et al. 2024, "A decoder-only foundation model for time-series forecasting"), after
`google/timesfm-2.0-500m-pytorch`, shrunk.

TimesFmModelForPrediction, called as in its documentation with a list of context series of different lengths:
- each series is cut to the last context_length points, or front-padded with zeros up to it, with a 0/1 padding
  indicator (1 for the padding) that also spans the horizon;
- the context is split into patches of 32 points; the series is normalized by the masked mean / std of its first
  patch with at least 3 real points; each patch (values with padding zeroed, concatenated with its padding
  indicators) goes through a residual MLP block (Linear-SiLU-Linear plus a linear skip) into the model width, and a
  learned frequency embedding (0 high, 1 medium, 2 low frequency) is added;
- a stack of causal decoder layers over the patch tokens (a patch counts as padding only when all its points are):
  RMSNorm, multi-head attention whose queries are scaled per dimension by a learned softplus(scale) * 1.4427 /
  sqrt(head_dim), and a LayerNorm-ReLU MLP whose output is zeroed at padded patches; no positional embedding (TimesFM
  2.0 drops it);
- a residual MLP block maps the last patch's output to horizon_length x (mean + 9 quantiles), de-normalized; the
  horizon (128) fits one output patch, so a single decoding step.
Published: context_length 2048, horizon_length 128, patch_length 32, hidden 1280, 50 layers, 16 heads x head_dim 80,
intermediate 1280.
Shrunk: context_length 2048 -> 128 (4 patches), hidden 1280 -> 128, 50 layers -> 2, 16 heads -> 4, head_dim 80 ->
32, intermediate 1280 -> 128. Kept: patch 32, horizon 128, 3 frequencies, 9 quantiles (0.1 .. 0.9), rms_norm_eps 1e-6,
pad_val 1123581321, tolerance 1e-6, no positional embedding.
Inputs: past_values, a list of 2 context series: a daily series of 160 points (truncated to its last 128) and a
monthly series of 72 points (front-padded by 56); freq (2,) = [0, 1].
Output: mean_predictions (2, 128).
"""
import torch
from torch import nn
from transformers import TimesFmConfig, TimesFmModelForPrediction

batch_size = 2
context_length = 128  # published 2048
horizon_length = 128
series_lengths = (160, 72)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = TimesFmModelForPrediction(config)

    def forward(self, past_values, freq):
        return self.model(past_values=past_values, freq=freq).mean_predictions


def get_inputs():
    # a daily series with a weekly season and a trend, and a monthly series with a yearly season
    t = torch.arange(series_lengths[0], dtype=torch.float32)
    daily = 50 + 0.1 * t + 5 * torch.sin(2 * torch.pi * t / 7) + torch.randn(series_lengths[0])
    t = torch.arange(series_lengths[1], dtype=torch.float32)
    monthly = 1000 * (1 + 0.3 * torch.sin(2 * torch.pi * t / 12)) * (1 + 0.05 * torch.randn(series_lengths[1]))
    past_values = [daily, monthly]
    freq = torch.tensor([0, 1], dtype=torch.long)
    return [past_values, freq]


def get_init_inputs():
    # google/timesfm-2.0-500m-pytorch config.json.
    return [TimesFmConfig(
        patch_length=32,
        context_length=context_length,  # published 2048
        horizon_length=horizon_length,
        freq_size=3,
        num_hidden_layers=2,  # published 50
        hidden_size=128,  # published 1280
        intermediate_size=128,  # published 1280
        head_dim=32,  # published 80
        num_attention_heads=4,  # published 16
        tolerance=1e-6,
        rms_norm_eps=1e-6,
        quantiles=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
        pad_val=1123581321.0,
        attention_dropout=0.0,
        use_positional_embedding=False,
        min_timescale=1,
        max_timescale=10000,
    )]
